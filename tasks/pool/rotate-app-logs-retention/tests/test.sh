#!/bin/bash
mkdir -p /logs/verifier
echo 0 > /logs/verifier/reward.txt
set +e
cd /app
if python3 /tests/check_rotate.py; then
  echo 1 > /logs/verifier/reward.txt
fi
exit 0
