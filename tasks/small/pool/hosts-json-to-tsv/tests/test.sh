#!/bin/bash
# Verifier for hosts-json-to-tsv
. /tests/verdict.sh
if verdict_python /tests/check.py; then
  echo PASS
  verdict_pass
else
  echo FAIL
fi
