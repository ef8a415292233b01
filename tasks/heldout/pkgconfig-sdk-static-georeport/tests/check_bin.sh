#!/bin/bash
# usage: check_bin.sh BINARY ; exit 0 if good
B=$1
[ -x "$B" ] || { echo "$B missing"; exit 1; }
if readelf -d "$B" | grep -q 'NEEDED.*libgeo'; then echo "$B needs libgeo.so at runtime"; exit 1; fi
if env -u LD_LIBRARY_PATH ldd "$B" 2>/dev/null | grep -q libgeo; then echo "$B loads libgeo dynamically"; exit 1; fi
OUT=$(cd / && env -u LD_LIBRARY_PATH "$B" /tests/routes2.txt 2>&1) || { echo "$B failed: $OUT"; exit 1; }
if [ "$OUT" != "$(cat /tests/expected_routes2.txt)" ]; then
  echo "$B output differs:"; diff <(echo "$OUT") /tests/expected_routes2.txt; exit 1
fi
exit 0
