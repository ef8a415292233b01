#!/bin/bash
. /tests/verdict.sh
cd /app || exit 0
if verdict_python /tests/check_rotate.py; then
  verdict_pass
fi
