#!/bin/bash
# Verifier for http-sqlite-catalog-search-api
. /tests/verdict.sh
BASE=http://127.0.0.1:8093
STARTED=""
verdict_cleanup() { [ -n "$STARTED" ] && kill "$STARTED" 2>/dev/null; }
fail() { echo "FAIL: $*"; exit 0; }

[ -f /app/catalog_server.py ] || fail "/app/catalog_server.py missing"
[ "$(sqlite3 /app/catalog.db 'select count(*) from books')" = "$(cat /tests/expected_books_count)" ] || fail "catalog.db was modified"
up() { curl -s -m 2 -o /dev/null "$BASE/stats"; }
if ! up; then
  echo "server not running; starting it"
  cd /app
  nohup python3 /app/catalog_server.py > /tmp/catalog_server.log 2>&1 &
  STARTED=$!
  for i in $(seq 1 50); do up && break; sleep 0.2; done
fi
up || fail "server not reachable on 127.0.0.1:8093"
verdict_python /tests/check_api.py || fail "API checks failed"
echo PASS
verdict_pass
