#!/bin/bash
set -e
# step: look at a bounced delivery line
grep -m 2 'status=bounced' /app/var/log/mail.log
# step[easy-to-miss]: the to=<> address of bounced lines, unique, no brackets
grep 'status=bounced' /app/var/log/mail.log | sed -n 's/.*to=<\([^>]*\)>.*/\1/p' | sort -u > /app/bounced.txt
cat /app/bounced.txt
