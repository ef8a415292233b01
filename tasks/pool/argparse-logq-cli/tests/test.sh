#!/bin/bash
# Verifier for argparse-logq-cli
. /tests/verdict.sh
[ -f /app/logq.py ] || { echo "FAIL: /app/logq.py missing"; exit 0; }
if verdict_python /tests/check.py; then
  echo PASS
  verdict_pass
else
  echo FAIL
fi
