#!/bin/bash
set -e
# step: check one page's shape
jq '{page, n: (.items | length)}' /app/export/page-1.json
# step[easy-to-miss]: slurp the pages in numeric order and concatenate their items
cd /app/export
jq -s 'sort_by(.page) | map(.items) | add' $(ls page-*.json | sort -t- -k2,2n) > /tmp/all_items.json
mv /tmp/all_items.json /app/export/all_items.json
jq length /app/export/all_items.json
