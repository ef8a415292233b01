#!/bin/bash
set -e
# step: count lines of every .py file, paths relative to /app/src
cd /app/src
find . -type f -name '*.py' -printf '%P\n' | while read -r f; do echo "$(wc -l < "$f") $f"; done > /tmp/loc.txt
# step[easy-to-miss]: largest first, nothing but the per-file lines
sort -k1,1nr /tmp/loc.txt > /app/loc.txt
cat /app/loc.txt
