#!/bin/bash
set -e
# step: look at the snapshot
jq -c '.hosts[]' /app/metrics/snapshot.json
# step[easy-to-miss]: hot on CPU or on memory, strict thresholds, snapshot order
jq -r '.hosts[] | select(.cpu_pct > 85 or .mem_pct > 90) | .name' /app/metrics/snapshot.json > /app/hot_hosts.txt
cat /app/hot_hosts.txt
