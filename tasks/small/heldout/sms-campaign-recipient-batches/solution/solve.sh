#!/bin/bash
set -e
# step: count the recipients
wc -l /app/sms/recipients.txt
# step[easy-to-miss]: 500 lines per piece, numeric two-digit suffixes after the prefix batch-
split -l 500 -d /app/sms/recipients.txt /app/sms/batches/batch-
wc -l /app/sms/batches/*
