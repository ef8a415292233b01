#!/bin/bash
set -e
# step: see how the file is stored in the archive
tar -tzf /app/drop/site-backup.tar.gz
# step[easy-to-miss]: extract only that member into /app/restore
mkdir -p /app/restore
tar -xzf /app/drop/site-backup.tar.gz -C /app/restore site/config/settings.ini
find /app/restore -type f
