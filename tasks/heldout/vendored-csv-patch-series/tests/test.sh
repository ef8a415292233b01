#!/bin/bash
# Verifier for vendored-csv-patch-series
. /tests/verdict.sh
fail() { echo "FAIL: $*"; exit 0; }

B=/app/bin/csvq
[ -x "$B" ] || fail "/app/bin/csvq missing"
( cd /app/csvq && sha256sum -c --quiet /tests/src.sha256 ) || fail "src/ was modified"
grep -q "#define MINICSV_DELIM ','" /app/csvq/third_party/minicsv/minicsv.h || fail "vendored delimiter changed"

W=$(mktemp -d)
"$B" customer /tests/invoices.csv > "$W/c.txt" 2>&1 || { cat "$W/c.txt"; fail "csvq customer failed"; }
diff -u /tests/expected_customer.txt "$W/c.txt" || fail "quoted fields not handled"
"$B" note /tests/invoices.csv > "$W/n.txt" 2>&1 || { cat "$W/n.txt"; fail "csvq note failed (CRLF header?)"; }
diff -u /tests/expected_note.txt "$W/n.txt" || fail "last column wrong (CRLF or quotes)"
od -c "$W/n.txt" | grep -q '\\r' && fail "carriage returns in output"
[ "$("$B" -s amount /tests/invoices.csv)" = "230.50" ] || fail "sum wrong"

rm -rf "$W"
echo PASS
verdict_pass
