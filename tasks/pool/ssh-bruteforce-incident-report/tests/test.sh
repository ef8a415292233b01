#!/bin/bash
. /tests/verdict.sh
if verdict_python /tests/check_incident.py; then
  verdict_pass
fi
