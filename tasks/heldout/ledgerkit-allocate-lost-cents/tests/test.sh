#!/bin/bash
# Runs the hidden unittest suite against the repository in /app.
. /tests/verdict.sh
cd /app || exit 0
if verdict_python --timeout 90 --path /app -m unittest discover -s /tests -p 'test_*.py' -v; then
  verdict_pass
fi
