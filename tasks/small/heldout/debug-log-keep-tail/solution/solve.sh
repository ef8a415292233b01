#!/bin/bash
set -e
# step: save the banner
head -n 5 /app/var/debug.log > /app/var/banner.txt
# step[easy-to-miss]: trim through a temporary file (redirecting onto the input empties it)
tail -n 100 /app/var/debug.log > /app/var/debug.log.tmp
mv /app/var/debug.log.tmp /app/var/debug.log
wc -l /app/var/debug.log /app/var/banner.txt
