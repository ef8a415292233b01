#!/bin/bash
set -e
# step: see which statuses occur
jq -r '.orders[].status' /app/data/orders.json | sort | uniq -c
# step[easy-to-miss]: count per status, missing status as "unknown"
jq '.orders | map(.status // "unknown") | group_by(.) | map({(.[0]): length}) | add' \
  /app/data/orders.json > /app/status_counts.json
cat /app/status_counts.json
