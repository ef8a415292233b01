#!/bin/bash
. /tests/verdict.sh
if [ ! -f /app/effective.env ]; then
  echo "FAIL: /app/effective.env missing"; exit 0
fi
if diff -u /tests/expected.env /app/effective.env; then
  verdict_pass
else
  echo "FAIL: /app/effective.env differs from the expected merge"
fi
