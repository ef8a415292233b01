#!/bin/bash
set -e
# step: look at both exports
head -n 3 /app/expo/scans-day1.csv /app/expo/scans-day2.csv
# step: start with day 1, header included
cp /app/expo/scans-day1.csv /app/expo/scans-all.csv
# step[easy-to-miss]: append day 2 without its header line
tail -n +2 /app/expo/scans-day2.csv >> /app/expo/scans-all.csv
cat /app/expo/scans-all.csv
