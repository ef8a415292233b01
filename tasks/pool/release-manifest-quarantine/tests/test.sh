#!/bin/bash
. /tests/verdict.sh
if verdict_python /tests/check_quarantine.py; then
  verdict_pass
fi
