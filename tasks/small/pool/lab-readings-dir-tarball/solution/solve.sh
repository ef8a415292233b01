#!/bin/bash
set -e
# step: see what is in the directory
ls -l /app/lab/readings
# step[easy-to-miss]: archive it relative to /app/lab so the paths start with readings/
tar -czf /app/outbox/readings.tar.gz -C /app/lab readings
tar -tzf /app/outbox/readings.tar.gz
