#!/bin/bash
# Verifier for python-unitconv-wheel-sdist
mkdir -p /logs/verifier
echo 0 > /logs/verifier/reward.txt
cd /tmp
if python3 /tests/check_dist.py; then
  echo PASS
  echo 1 > /logs/verifier/reward.txt
else
  echo FAIL
fi
