#!/bin/bash
set -e
cd /app/weather
# step: look at the readings
head -4 readings.csv
# step[easy-to-miss]: sort numerically on temp_c and keep the top row
tail -n +2 readings.csv | sort -t, -k3,3 -g -r | head -1 > warmest.txt
cat warmest.txt
