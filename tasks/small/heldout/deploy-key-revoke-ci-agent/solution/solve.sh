#!/bin/bash
set -e
# step: list the key comments
awk '{print NR": "$NF}' /app/home/deploy/.ssh/authorized_keys
# step[easy-to-miss]: delete only the line ending in exactly builder@ci-agent-1 (not -11 or -12)
sed -i '/ builder@ci-agent-1$/d' /app/home/deploy/.ssh/authorized_keys
awk '{print NR": "$NF}' /app/home/deploy/.ssh/authorized_keys
