#!/bin/bash
# Verifier for env-source-image-ref: it passes only when every check in check.py passes.
. /tests/verdict.sh
cd /app || exit 0
if verdict_python --timeout 40 /tests/check.py; then
  echo PASS
  verdict_pass
else
  echo FAIL
fi
