#!/bin/bash
# Verifier for gnupg-homedir-create-0700: it passes only when every check in check.py passes.
. /tests/verdict.sh
cd /app || exit 0
if verdict_python --timeout 40 /tests/check.py; then
  verdict_pass
fi
