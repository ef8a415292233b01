#!/bin/bash
. /tests/verdict.sh
if verdict_python /tests/check_dusage.py; then
  verdict_pass
fi
