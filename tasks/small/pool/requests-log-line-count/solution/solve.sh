#!/bin/bash
set -e
# step: count the lines of the log
wc -l /app/logs/requests.log
# step[easy-to-miss]: write only the number (no file name) to the result file
wc -l < /app/logs/requests.log > /app/request_count.txt
cat /app/request_count.txt
