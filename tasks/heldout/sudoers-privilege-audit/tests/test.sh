#!/bin/bash
. /tests/verdict.sh
if verdict_python /tests/check_audit.py; then
  verdict_pass
fi
