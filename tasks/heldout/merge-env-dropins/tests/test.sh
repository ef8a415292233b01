#!/bin/bash
mkdir -p /logs/verifier
echo 0 > /logs/verifier/reward.txt
set +e
if [ ! -f /app/effective.env ]; then
  echo "FAIL: /app/effective.env missing"; exit 0
fi
if diff -u /tests/expected.env /app/effective.env; then
  echo 1 > /logs/verifier/reward.txt
else
  echo "FAIL: /app/effective.env differs from the expected merge"
fi
exit 0
