#!/bin/bash
. /tests/verdict.sh
if verdict_python /tests/check_redact.py; then
  verdict_pass
fi
