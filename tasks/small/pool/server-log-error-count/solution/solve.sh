#!/bin/bash
set -e
# step: create the report directory
mkdir -p /app/report
# step: count the lines whose level is ERROR (case-sensitive, level field only)
awk '$3 == "ERROR"' /app/logs/server.log | wc -l > /app/report/error_count.txt
cat /app/report/error_count.txt
