#!/bin/bash
# Verifier: checks the merge commit, the conflict resolutions and that the merged code works.
. /tests/verdict.sh
if verdict_python --timeout 90 /tests/check.py; then
  verdict_pass
fi
