#!/bin/bash
# Rotate the application logs; called nightly by cron.
set -e
cd /app/logs
for f in *.log; do
  mv "$f" "$f.1"
done
