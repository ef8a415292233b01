#!/bin/bash
mkdir -p /logs/verifier
echo 0 > /logs/verifier/reward.txt
set +e
python3 /tests/check_service.py
rc=$?
# cleanup whatever was started
if [ -f /app/service/service.pid ]; then kill "$(cat /app/service/service.pid)" 2>/dev/null; fi
if [ $rc -eq 0 ]; then
  echo 1 > /logs/verifier/reward.txt
fi
exit 0
