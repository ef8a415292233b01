#!/bin/bash
# Verifier for argparse-logq-cli
mkdir -p /logs/verifier
echo 0 > /logs/verifier/reward.txt
[ -f /app/logq.py ] || { echo "FAIL: /app/logq.py missing"; exit 0; }
if python3 /tests/check.py; then
  echo PASS
  echo 1 > /logs/verifier/reward.txt
else
  echo FAIL
fi
