#!/bin/bash
set -e
# step: look at the log
head -n 20 /app/ups/status.log
# step[easy-to-miss]: collapse only consecutive repeats (uniq, not sort -u)
uniq /app/ups/status.log > /app/ups/transitions.txt
cat /app/ups/transitions.txt
