#!/bin/bash
# Verifier for http-inventory-json-api
. /tests/verdict.sh
BASE=http://127.0.0.1:8087
STARTED=""
verdict_cleanup() { [ -n "$STARTED" ] && kill "$STARTED" 2>/dev/null; }
fail() { echo "FAIL: $*"; exit 0; }

[ -f /app/inventory_server.py ] || fail "/app/inventory_server.py missing"
DATA=/app/data/inventory.json
jq -e '.items | type == "array"' "$DATA" >/dev/null 2>&1 || fail "data file is not in the expected format"

up() { curl -s -m 2 -o /dev/null "$BASE/health"; }
if ! up; then
  echo "server not running; starting it"
  cd /app
  nohup python3 /app/inventory_server.py > /tmp/inventory_server.log 2>&1 &
  STARTED=$!
  for i in $(seq 1 50); do up && break; sleep 0.2; done
fi
up || fail "server not reachable on 127.0.0.1:8087"

W=$(mktemp -d)
# req METHOD PATH [BODY] -> sets CODE, CT and writes body to $W/body
req() {
  local out
  if [ $# -ge 3 ]; then
    out=$(curl -s -m 5 -X "$1" -H 'Content-Type: application/json' --data-binary "$3" -o "$W/body" -w '%{http_code} %{content_type}' "$BASE$2")
  else
    out=$(curl -s -m 5 -X "$1" -o "$W/body" -w '%{http_code} %{content_type}' "$BASE$2")
  fi
  CODE=${out%% *}; CT=${out#* }
}
expect() {  # expect CODE [jq-filter-that-must-be-true]
  [ "$CODE" = "$1" ] || fail "$DESC: HTTP $CODE, expected $1 (body: $(head -c 200 "$W/body"))"
  case "$CT" in application/json*) ;; *) fail "$DESC: Content-Type '$CT' is not application/json";; esac
  jq -e . "$W/body" >/dev/null 2>&1 || fail "$DESC: body is not JSON: $(head -c 200 "$W/body")"
  if [ -n "$2" ]; then jq -e "$2" "$W/body" >/dev/null 2>&1 || fail "$DESC: body check '$2' failed: $(head -c 300 "$W/body")"; fi
}
errjson() { expect "$1" '(.error | type) == "string"'; }

DESC="health"; req GET /health; expect 200 '.status == "ok"'
# the listing must match the data file (sorted by sku)
jq -c '[.items[] | {sku, name, qty}] | sort_by(.sku)' "$DATA" > "$W/file.json"
DESC="list"; req GET /items; expect 200 'type == "array"'
jq -c '[.[] | {sku, name, qty}]' "$W/body" > "$W/list.json"
cmp -s "$W/file.json" "$W/list.json" || fail "GET /items does not match the data file sorted by sku"
N=$(jq 'length' "$W/list.json")
DESC="min_qty"; req GET '/items?min_qty=10'; expect 200
[ "$(jq -c '[.[].sku]' "$W/body")" = "$(jq -c '[.[] | select(.qty >= 10) | .sku]' "$W/file.json")" ] || fail "min_qty filter wrong"
DESC="min_qty bad"; req GET '/items?min_qty=lots'; errjson 400

SKU="QA-$(date +%s)-$$"
DESC="get missing"; req GET "/items/$SKU"; errjson 404
DESC="create"; req POST /items "{\"sku\": \"$SKU\", \"name\": \"Test bell\", \"qty\": 5}"
expect 201 ".sku == \"$SKU\" and .qty == 5 and .name == \"Test bell\""
jq -e --arg s "$SKU" '.items[] | select(.sku == $s) | .qty == 5' "$DATA" >/dev/null 2>&1 || fail "created item not written to $DATA"
DESC="get created"; req GET "/items/$SKU"; expect 200 ".sku == \"$SKU\" and .qty == 5"
DESC="list grows"; req GET /items; expect 200 "length == $((N + 1))"
DESC="duplicate"; req POST /items "{\"sku\": \"$SKU\", \"name\": \"Again\", \"qty\": 1}"; errjson 409
DESC="bad json"; req POST /items '{"sku": "X1", "name": '; errjson 400
DESC="missing field"; req POST /items '{"sku": "QA-NOQTY-1", "name": "No qty"}'; errjson 400
DESC="negative qty"; req POST /items '{"sku": "QA-NEG-1", "name": "Neg", "qty": -2}'; errjson 400
DESC="string qty"; req POST /items '{"sku": "QA-STR-1", "name": "Str", "qty": "3"}'; errjson 400
DESC="adjust down"; req POST "/items/$SKU/adjust" '{"delta": -3}'; expect 200 '.qty == 2'
DESC="adjust too far"; req POST "/items/$SKU/adjust" '{"delta": -5}'; errjson 409
DESC="unchanged"; req GET "/items/$SKU"; expect 200 '.qty == 2'
jq -e --arg s "$SKU" '.items[] | select(.sku == $s) | .qty == 2' "$DATA" >/dev/null 2>&1 || fail "adjustment not written to $DATA"
DESC="adjust bad body"; req POST "/items/$SKU/adjust" '{"delta": "many"}'; errjson 400
DESC="adjust unknown"; req POST "/items/NOPE-$SKU/adjust" '{"delta": 1}'; errjson 404
DESC="unknown path"; req GET /nowhere; errjson 404
DESC="unknown nested path"; req GET "/items/$SKU/history"; errjson 404

rm -rf "$W"
echo PASS
verdict_pass
