#!/bin/bash
set -e
# step: look at the current modes
ls -l /app/tools
# step[easy-to-miss]: make only rotate-logs.sh executable, not purge-cache.sh
chmod 0755 /app/tools/rotate-logs.sh
ls -l /app/tools
