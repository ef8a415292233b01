#!/bin/bash
set -e
# step: show the file with tabs and line ends visible
cat -A /app/etc/crontab.bak
# step[easy-to-miss]: drop blank/whitespace-only lines and comments, also indented ones
grep -v -E '^[[:space:]]*(#|$)' /app/etc/crontab.bak > /app/active_cron.txt
cat /app/active_cron.txt
