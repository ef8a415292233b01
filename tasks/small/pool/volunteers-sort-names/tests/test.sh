#!/bin/bash
# Verifier for volunteers-sort-names: it passes only when every check in check.py passes.
. /tests/verdict.sh
if verdict_python /tests/check.py; then
  echo PASS
  verdict_pass
else
  echo FAIL
fi
