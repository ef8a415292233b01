#!/bin/bash
# Verifier for proc-ticker-background-pidfile: it passes only when every check in check.py passes.
. /tests/verdict.sh
verdict_cleanup() {
  if [ -f /app/ticker.pid ]; then kill "$(cat /app/ticker.pid)" 2>/dev/null; fi
}
cd /app || exit 0
if verdict_python --timeout 40 /tests/check.py; then
  verdict_pass
fi
