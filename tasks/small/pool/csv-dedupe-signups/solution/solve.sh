#!/bin/bash
set -e
cd /app
# step: look at the duplicates
cut -d, -f1 signups.csv | sort -f | uniq -ci | sort -rn | head
# step[easy-to-miss]: keep the first row per lower-cased email
awk -F, 'NR == 1 || !seen[tolower($1)]++' signups.csv > signups_dedup.csv
cat signups_dedup.csv
