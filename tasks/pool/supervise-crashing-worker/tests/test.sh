#!/bin/bash
. /tests/verdict.sh
if verdict_python /tests/check_supervise.py; then
  verdict_pass
fi
