#!/bin/bash
# Prints the order count and revenue of one region (REPORT_REGION), or of all regions when it is unset.
region="${REPORT_REGION:-all}"
echo "Sales report, region: $region"
awk -F, -v r="$region" 'NR > 1 && (r == "all" || $2 == r) { n++; s += $3 }
  END { printf "orders: %d\nrevenue: %.2f\n", n, s }' /app/tools/sales.csv
