#!/bin/bash
# Verifier: checks the release branch, the tag and what was published to origin.
mkdir -p /logs/verifier
echo 0 > /logs/verifier/reward.txt
if timeout 60 python3 /tests/check.py; then
  echo 1 > /logs/verifier/reward.txt
fi
exit 0
