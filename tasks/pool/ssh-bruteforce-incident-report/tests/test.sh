#!/bin/bash
mkdir -p /logs/verifier
echo 0 > /logs/verifier/reward.txt
set +e
if python3 /tests/check_incident.py; then
  echo 1 > /logs/verifier/reward.txt
fi
exit 0
