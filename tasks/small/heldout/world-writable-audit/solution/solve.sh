#!/bin/bash
set -e
# step: list world-writable entries (absolute paths, sorted)
find /app/shared -perm -o+w | LC_ALL=C sort > /app/world_writable.txt
cat /app/world_writable.txt
# step[easy-to-miss]: clear only the others-write bit
xargs -d '\n' chmod o-w < /app/world_writable.txt
find /app/shared -exec stat -c '%a %n' {} +
