#!/bin/bash
set -e
# step: look at the pieces
ls -l /app/transfer
# step[easy-to-miss]: join exactly .aa .ab .ac in order (not the .sha256 file) and verify
cd /app/transfer
cat responses-2024.csv.aa responses-2024.csv.ab responses-2024.csv.ac > responses-2024.csv
sha256sum -c responses-2024.csv.sha256
