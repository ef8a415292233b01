#!/bin/bash
# Verifier: checks the reported commit and the repository state.
. /tests/verdict.sh
if verdict_python --timeout 60 /tests/check.py; then
  verdict_pass
fi
