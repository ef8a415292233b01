#!/bin/bash
set -e
# step: create the stale directory
mkdir -p /app/spool/stale
# step[easy-to-miss]: move (mtime kept) the files not modified since 2024-01-01
find /app/spool/outgoing -maxdepth 1 -type f ! -newermt '2024-01-01 00:00' -exec mv -t /app/spool/stale/ {} +
ls -l /app/spool/outgoing /app/spool/stale
