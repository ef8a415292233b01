#!/bin/bash
set -e
# step: look at the input
head -n 20 /app/words.txt
# step[easy-to-miss]: lower-case first, then drop empty lines and duplicates, sorted
tr 'A-Z' 'a-z' < /app/words.txt | grep -v '^$' | LC_ALL=C sort -u > /app/words.clean
cat /app/words.clean
