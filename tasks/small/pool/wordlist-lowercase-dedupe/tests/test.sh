#!/bin/bash
# Verifier for wordlist-lowercase-dedupe
. /tests/verdict.sh
if verdict_python /tests/check.py; then
  echo PASS
  verdict_pass
else
  echo FAIL
fi
