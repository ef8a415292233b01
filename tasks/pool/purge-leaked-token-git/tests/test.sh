#!/bin/bash
. /tests/verdict.sh
if verdict_python /tests/check_purge.py; then
  verdict_pass
fi
