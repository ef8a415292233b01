#!/bin/bash
set -e
# step: create the backup directory
mkdir -p /app/backup
# step[easy-to-miss]: copy the file (keep the original in place)
cp /app/etc/redis.conf /app/backup/redis.conf
ls -l /app/etc /app/backup
