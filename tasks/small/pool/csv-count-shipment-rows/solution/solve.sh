#!/bin/bash
set -e
# step: look at the file
head -3 /app/data/shipments.csv
# step[easy-to-miss]: count the lines after the header only
tail -n +2 /app/data/shipments.csv | wc -l > /app/data/shipment_count.txt
cat /app/data/shipment_count.txt
