#!/bin/bash
set -e
# step: look at the export
head -n 5 /app/race/results.csv
# step[easy-to-miss]: keep the header first, sort only the data rows by the 4th column
{ head -n 1 /app/race/results.csv; tail -n +2 /app/race/results.csv | sort -t, -k4,4; } > /app/race/ranking.csv
cat /app/race/ranking.csv
