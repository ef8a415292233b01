#!/bin/bash
set -e
# step: look at the columns
head -n 3 /app/crm/contacts.csv
# step[easy-to-miss]: cut the third column and drop the header line
tail -n +2 /app/crm/contacts.csv | cut -d, -f3 > /app/crm/emails.txt
cat /app/crm/emails.txt
