#!/bin/bash
# Verifier for python-unitconv-wheel-sdist
. /tests/verdict.sh
cd /tmp
if verdict_python /tests/check_dist.py; then
  echo PASS
  verdict_pass
else
  echo FAIL
fi
