#!/bin/bash
# Verifier: reward 0 unless every check in check.py passes.
mkdir -p /logs/verifier
echo 0 > /logs/verifier/reward.txt
cd /app || exit 0
if python3 /tests/check.py; then
  echo 1 > /logs/verifier/reward.txt
fi
exit 0
