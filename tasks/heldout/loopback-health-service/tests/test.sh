#!/bin/bash
. /tests/verdict.sh
verdict_python /tests/check_service.py
rc=$?
# cleanup whatever was started
if [ -f /app/service/service.pid ]; then kill "$(cat /app/service/service.pid)" 2>/dev/null; fi
if [ $rc -eq 0 ]; then
  verdict_pass
fi
