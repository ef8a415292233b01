#!/bin/bash
set -e
# step: look at the log format (the status code is field 9)
head -n 3 /app/logs/access.log
# step[easy-to-miss]: count 404s by the status field only, top three as "<count> <ip>"
awk '$9 == 404 {print $1}' /app/logs/access.log | sort | uniq -c | sort -rn | head -n 3 \
  | awk '{print $1, $2}' > /app/top404.txt
cat /app/top404.txt
