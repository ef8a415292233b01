#!/bin/bash
set -e
# step: create the directories and the .gitkeep files
mkdir -p /app/payments-svc/src/handlers /app/payments-svc/src/models /app/payments-svc/tests/unit /app/payments-svc/docs
for d in src/handlers src/models tests/unit docs; do : > "/app/payments-svc/$d/.gitkeep"; done
# step[easy-to-miss]: 0750 on every directory, intermediate ones included
find /app/payments-svc -type d -exec chmod 0750 {} +
find /app/payments-svc -exec ls -ld {} +
