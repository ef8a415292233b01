#!/bin/bash
# Runs the hidden unittest suite against the repository in /app.
mkdir -p /logs/verifier
echo 0 > /logs/verifier/reward.txt
cd /app || exit 0
export PYTHONPATH=/app PYTHONDONTWRITEBYTECODE=1
if timeout 90 python3 -m unittest discover -s /tests -p 'test_*.py' -v; then
  echo 1 > /logs/verifier/reward.txt
fi
exit 0
