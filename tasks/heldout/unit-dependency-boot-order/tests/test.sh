#!/bin/bash
. /tests/verdict.sh
if verdict_python /tests/check_bootorder.py; then
  verdict_pass
fi
