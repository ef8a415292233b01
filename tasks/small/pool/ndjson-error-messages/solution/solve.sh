#!/bin/bash
set -e
# step: find the broken lines
jq -c . /app/logs/events.ndjson > /dev/null || true
# step[easy-to-miss]: parse line by line, skipping what is not JSON
jq -R -r 'fromjson? | select(.level == "error") | .msg' /app/logs/events.ndjson > /app/errors.txt
cat /app/errors.txt
