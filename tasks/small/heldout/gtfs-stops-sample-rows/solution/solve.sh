#!/bin/bash
set -e
# step: look at the start of the stops file
head -n 3 /app/gtfs/stops.txt
# step[easy-to-miss]: header + 15 stops = 16 lines
head -n 16 /app/gtfs/stops.txt > /app/gtfs/stops-sample.txt
wc -l /app/gtfs/stops-sample.txt
