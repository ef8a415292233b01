#!/bin/bash
set -e
cd /app
# step: look at the schema
sqlite3 library.db '.schema'
# step[easy-to-miss]: count open loans per member, ties by name, as CSV with a header
sqlite3 -csv -header library.db "
  SELECT m.name AS member, COUNT(*) AS open_loans
  FROM loans l JOIN members m ON m.id = l.member_id
  WHERE l.returned_on IS NULL
  GROUP BY m.id
  ORDER BY open_loans DESC, member" > open_loans.csv
cat open_loans.csv
