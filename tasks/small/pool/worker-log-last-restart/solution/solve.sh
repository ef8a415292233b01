#!/bin/bash
set -e
# step: find the restart markers
grep -n '^--- worker restarted' /app/logs/worker.log
# step[easy-to-miss]: keep only what follows the last marker
awk '/^--- worker restarted at / {n = 0; next} {buf[++n] = $0} END {for (i = 1; i <= n; i++) print buf[i]}' \
  /app/logs/worker.log > /app/last_run.log
cat /app/last_run.log
