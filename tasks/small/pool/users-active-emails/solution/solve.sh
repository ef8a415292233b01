#!/bin/bash
set -e
# step: inspect one record
jq '.[0]' /app/data/users.json
# step: emails of active users, sorted
jq -r '.[] | select(.active == true) | .email' /app/data/users.json | sort > /app/active_emails.txt
cat /app/active_emails.txt
