#!/bin/bash
set -e
cd /app
# step: create the backup directory
mkdir -p /app/backup
# step[easy-to-miss]: archive only the .conf files, relative to /app
find etc -type f -name '*.conf' | sort | tar -czf /app/backup/etc-conf.tar.gz -T -
tar -tzf /app/backup/etc-conf.tar.gz
