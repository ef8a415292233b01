#!/bin/bash
set -e
# step[easy-to-miss]: decompress api.log.2.gz, keeping the .gz file
gunzip -k /app/logs/api.log.2.gz
# step: decompress api.log.3.gz, keeping the .gz file
gunzip -k /app/logs/api.log.3.gz
ls -l /app/logs
