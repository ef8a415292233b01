#!/bin/bash
set -e
# step: look at the backups
ls -l /app/backups
# step[easy-to-miss]: compress, keeping the uncompressed dump (plain gzip would delete it)
gzip -k /app/backups/crm-2024-06-30.sql
ls -l /app/backups
