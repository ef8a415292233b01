#!/bin/bash
set -e
# step: look at the service directory
ls -l /app/srv/ingest
# step: create the target directory
mkdir -p /app/crash/ingest
# step[easy-to-miss]: move only core.<pid> (digits after the dot), not core.py or core.yaml
mv /app/srv/ingest/core.[0-9]* /app/crash/ingest/
ls -l /app/srv/ingest /app/crash/ingest
