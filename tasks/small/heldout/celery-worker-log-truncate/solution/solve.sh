#!/bin/bash
set -e
# step: see the log files and their sizes
ls -l /app/var/log/celery
# step[easy-to-miss]: truncate in place (same file, mode kept; no rm, no newline)
truncate -s 0 /app/var/log/celery/worker.log
ls -l /app/var/log/celery
