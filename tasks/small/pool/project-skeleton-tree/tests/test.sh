#!/bin/bash
# Verifier for project-skeleton-tree
. /tests/verdict.sh
if verdict_python /tests/check.py; then
  echo PASS
  verdict_pass
else
  echo FAIL
fi
