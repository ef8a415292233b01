#!/bin/bash
# Verifier: checks the merge commit, the conflict resolutions and that the merged code works.
mkdir -p /logs/verifier
echo 0 > /logs/verifier/reward.txt
if timeout 90 python3 /tests/check.py; then
  echo 1 > /logs/verifier/reward.txt
fi
exit 0
