#!/bin/bash
set -e
cd /app
# step: look at the header and the status values
head -3 invoices.csv
cut -d, -f4 invoices.csv | sort | uniq -c
# step[easy-to-miss]: sum the paid amounts and print them with two decimals
awk -F, 'NR > 1 && $4 == "paid" { s += $3 } END { printf "%.2f\n", s }' invoices.csv > paid_total.txt
cat paid_total.txt
