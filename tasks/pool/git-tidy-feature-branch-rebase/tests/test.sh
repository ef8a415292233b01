#!/bin/bash
# Verifier: checks the rewritten feature branch against a fresh build of the original repo.
. /tests/verdict.sh
export PYTHONDONTWRITEBYTECODE=1
if verdict_python --timeout 100 /tests/check.py; then
  verdict_pass
fi
