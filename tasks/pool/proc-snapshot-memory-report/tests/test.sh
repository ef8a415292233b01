#!/bin/bash
. /tests/verdict.sh
if verdict_python /tests/check_memtop.py; then
  verdict_pass
fi
