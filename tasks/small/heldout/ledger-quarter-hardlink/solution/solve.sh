#!/bin/bash
set -e
# step: look at the reports and their inode numbers
ls -li /app/finance/reports
# step[easy-to-miss]: a hard link is ln without -s; the quarter file stays
ln /app/finance/reports/2024-q2.csv /app/finance/reports/current.csv
ls -li /app/finance/reports
