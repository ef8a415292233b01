#!/bin/bash
. /tests/verdict.sh
if verdict_python /tests/check_backup.py; then
  verdict_pass
fi
