#!/bin/bash
# Verifier: checks the backport commit on maint/1.x against a fresh build of the original repo.
mkdir -p /logs/verifier
echo 0 > /logs/verifier/reward.txt
export PYTHONDONTWRITEBYTECODE=1
if timeout 90 python3 /tests/check.py; then
  echo 1 > /logs/verifier/reward.txt
fi
exit 0
