#!/bin/bash
set -e
# step: find the lines that name the old mirror
grep -n 'old-mirror.example.com' /app/etc/apt/sources.list
# step[easy-to-miss]: replace every occurrence in place (g flag: a line can hold it twice)
sed -i 's/old-mirror\.example\.com/mirror.example.net/g' /app/etc/apt/sources.list
cat /app/etc/apt/sources.list
