#!/bin/bash
set -e
# step: see which lines mention a timeout in any spelling
grep -n -i timeout /app/logs/sync.log
# step[easy-to-miss]: keep only the lower-case `timeout` lines (case-sensitive grep)
grep 'timeout' /app/logs/sync.log > /app/logs/timeouts.log
cat /app/logs/timeouts.log
