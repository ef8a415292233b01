#!/bin/bash
# Verifier: checks the rewritten feature branch against a fresh build of the original repo.
mkdir -p /logs/verifier
echo 0 > /logs/verifier/reward.txt
export PYTHONDONTWRITEBYTECODE=1
if timeout 100 python3 /tests/check.py; then
  echo 1 > /logs/verifier/reward.txt
fi
exit 0
