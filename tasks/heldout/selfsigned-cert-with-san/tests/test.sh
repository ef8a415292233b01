#!/bin/bash
. /tests/verdict.sh
if verdict_python /tests/check_cert.py; then
  verdict_pass
fi
