#!/bin/bash
set -e
# step: list the sizes of everything, subfolders included
ls -laR /app/downloads
# step[easy-to-miss]: take the largest regular file of /app/downloads itself, not of its subfolders
find /app/downloads -maxdepth 1 -type f -printf '%s %f\n' | sort -n | tail -n 1 | cut -d' ' -f2- > /app/largest.txt
cat /app/largest.txt
