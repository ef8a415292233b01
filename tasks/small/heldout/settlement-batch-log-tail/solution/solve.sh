#!/bin/bash
set -e
# step: check how long the log is
wc -l /app/settlement/logs/batch-0611.log
# step: create the ticket directory
mkdir -p /app/support/PAY-771
# step[easy-to-miss]: exactly the last 30 lines, into the new directory
tail -n 30 /app/settlement/logs/batch-0611.log > /app/support/PAY-771/log-tail.txt
wc -l /app/support/PAY-771/log-tail.txt
