#!/bin/bash
set -e
# step: look at the comment lines
grep -n '^#' /app/dns/blocklist.txt
# step[easy-to-miss]: count only the lines that are not comments
grep -vc '^#' /app/dns/blocklist.txt > /app/dns/blocked_count.txt
cat /app/dns/blocked_count.txt
