#!/bin/bash
set -e
# step: look at the current patterns
cat /app/webapp/.gitignore
# step[easy-to-miss]: append with >> (a single > would wipe the existing patterns)
echo 'coverage/' >> /app/webapp/.gitignore
cat /app/webapp/.gitignore
