#!/bin/bash
set -e
# step: read how the script picks its region
cat /app/tools/sales_report.sh
# step[easy-to-miss]: pass REPORT_REGION to the script's own process (same command line) and save its output
REPORT_REGION=emea /app/tools/sales_report.sh > /app/reports/emea.txt
cat /app/reports/emea.txt
