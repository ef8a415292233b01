#!/bin/bash
set -e
# step: look at the list
cat /app/release/merged-prs.txt
# step[easy-to-miss]: numeric sort (sort -n), not the default text order
sort -n /app/release/merged-prs.txt > /app/release/merged-prs-sorted.txt
cat /app/release/merged-prs-sorted.txt
