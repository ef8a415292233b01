#!/bin/bash
set -e
# step: create the archive directory
mkdir -p /app/archive/pdf
# step[easy-to-miss]: move PDFs from every depth
find /app/inbox -type f -name '*.pdf' -exec mv -t /app/archive/pdf/ {} +
ls /app/archive/pdf
