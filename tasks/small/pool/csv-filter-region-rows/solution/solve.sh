#!/bin/bash
set -e
cd /app
# step: look at the columns
head -3 data/sales.csv
# step[easy-to-miss]: keep the header and the north rows
awk -F, 'NR == 1 || $2 == "north"' data/sales.csv > north_sales.csv
cat north_sales.csv
