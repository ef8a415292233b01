#!/bin/bash
set -e
cd /app/support
# step: look at the states and priorities
head -5 tickets.csv
cut -d, -f4 tickets.csv | sort | uniq -c
# step[easy-to-miss]: count open tickets per priority, largest first
awk -F, 'NR > 1 && $4 == "open" { n[$2]++ } END { for (p in n) print n[p], p }' tickets.csv \
  | sort -k1,1nr -k2 | awk '{ print $2 ": " $1 }' > priority_counts.txt
cat priority_counts.txt
