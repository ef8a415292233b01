#!/bin/bash
set -e
cd /app
# step: look at the table
sqlite3 crm.db '.schema accounts'
# step: export the premium usernames, sorted
sqlite3 crm.db "SELECT username FROM accounts WHERE plan = 'premium' ORDER BY username" > premium_users.txt
cat premium_users.txt
