#!/bin/bash
# Verifier: checks the backport commit on maint/1.x against a fresh build of the original repo.
. /tests/verdict.sh
export PYTHONDONTWRITEBYTECODE=1
if verdict_python --timeout 90 /tests/check.py; then
  verdict_pass
fi
