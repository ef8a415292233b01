#!/bin/bash
set -e
# step: look at the tabs and the empty columns
cat -A /app/exports/stock.tsv
# step[easy-to-miss]: replace every tab by a comma, one for one, so empty columns stay empty fields
tr '\t' ',' < /app/exports/stock.tsv > /app/exports/stock.csv
cat /app/exports/stock.csv
