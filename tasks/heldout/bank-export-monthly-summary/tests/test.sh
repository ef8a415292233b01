#!/bin/bash
# Verifier: reward 0 unless every check in check.py passes.
. /tests/verdict.sh
cd /app || exit 0
if verdict_python /tests/check.py; then
  verdict_pass
fi
