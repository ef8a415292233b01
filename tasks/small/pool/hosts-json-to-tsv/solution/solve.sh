#!/bin/bash
set -e
# step: write the header
printf 'hostname\tip\ttags\n' > /app/prod_hosts.tsv
# step[easy-to-miss]: prod hosts sorted by hostname, missing tags as an empty column
jq -r 'map(select(.env == "prod")) | sort_by(.hostname) | .[] | [.hostname, .ip, ((.tags // []) | join(","))] | @tsv' \
  /app/data/hosts.json >> /app/prod_hosts.tsv
cat /app/prod_hosts.tsv
