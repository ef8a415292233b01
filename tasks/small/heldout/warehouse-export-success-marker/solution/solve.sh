#!/bin/bash
set -e
# step[easy-to-miss]: the day directory does not exist yet
mkdir -p /app/warehouse/exports/2024-06-12
# step: the empty marker file
touch /app/warehouse/exports/2024-06-12/_SUCCESS
ls -la /app/warehouse/exports/2024-06-12
