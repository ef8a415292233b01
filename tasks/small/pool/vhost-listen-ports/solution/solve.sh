#!/bin/bash
set -e
# step: find the listen directives
grep -n 'listen' /app/nginx/conf.d/*.conf
# step[easy-to-miss]: skip commented-out lines, keep the port number, unique, numeric order
grep -h '^[[:space:]]*listen[[:space:]]' /app/nginx/conf.d/*.conf \
  | awk '{gsub(";", "", $2); print $2}' | sort -n -u > /app/ports.txt
cat /app/ports.txt
