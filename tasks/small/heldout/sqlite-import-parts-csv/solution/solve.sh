#!/bin/bash
set -e
cd /app/warehouse
# step: create the table with typed columns
sqlite3 parts.db 'CREATE TABLE parts (sku TEXT, name TEXT, qty INTEGER);'
# step[easy-to-miss]: import the CSV without its header line
sqlite3 parts.db '.import --csv --skip 1 parts.csv parts'
sqlite3 parts.db 'SELECT count(*), typeof(qty) FROM parts GROUP BY 2'
