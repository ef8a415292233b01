#!/bin/bash
# step[easy-to-miss]: run the check with both output streams in the log
status=0
python3 /app/tools/check_mounts.py > /app/reports/mounts.log 2>&1 || status=$?
# step: record its exit status
echo "$status" > /app/reports/mounts.status
cat /app/reports/mounts.log /app/reports/mounts.status
