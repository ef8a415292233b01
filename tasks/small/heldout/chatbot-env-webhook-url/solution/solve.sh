#!/bin/bash
set -e
# step: look at the current webhook line
grep -n '^WEBHOOK_URL=' /app/chatbot/.env
# step[easy-to-miss]: replace the whole line in place, with a delimiter that is not in the URL
sed -i 's|^WEBHOOK_URL=.*$|WEBHOOK_URL=https://hooks.example.com/services/T01/B02/new-support|' /app/chatbot/.env
cat /app/chatbot/.env
