#!/bin/bash
. /tests/verdict.sh
if verdict_python /tests/check_perms.py; then
  verdict_pass
fi
