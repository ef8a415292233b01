#!/bin/bash
# Verifier: checks the release branch, the tag and what was published to origin.
. /tests/verdict.sh
if verdict_python --timeout 60 /tests/check.py; then
  verdict_pass
fi
