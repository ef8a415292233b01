#!/bin/bash
. /tests/verdict.sh
if verdict_python /tests/check_iocs.py; then
  verdict_pass
fi
