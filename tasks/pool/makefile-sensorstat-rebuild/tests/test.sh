#!/bin/bash
# Verifier for makefile-sensorstat-rebuild
. /tests/verdict.sh
fail() { echo "FAIL: $*"; exit 0; }

SRC=/app/sensorstat
[ -f "$SRC/Makefile" ] || fail "Makefile missing"

# sources and headers must be untouched
( cd "$SRC" && sha256sum -c --quiet /tests/sources.sha256 ) || fail "sources or headers were modified"

W=$(mktemp -d)
cp -a "$SRC" "$W/s" || fail "copy failed"
cd "$W/s" || fail "cd failed"
# clean tree: drop any build products
find . \( -name '*.o' -o -name '*.d' \) -type f -delete
rm -rf build bin

make >"$W/build1.log" 2>&1 || { tail -20 "$W/build1.log"; fail "make from clean tree failed"; }
[ -x bin/sensorstat ] || fail "bin/sensorstat not built"
./bin/sensorstat data/readings.csv > "$W/out75.txt" 2>&1 || fail "sensorstat failed"
diff -u /tests/expected_75.txt "$W/out75.txt" || fail "wrong output with default threshold"

# edit the header and rebuild with a plain make
sleep 1.1
sed -i 's/^#define ALERT_THRESHOLD 75.0/#define ALERT_THRESHOLD 60.0/' include/config.h
grep -q 'ALERT_THRESHOLD 60.0' include/config.h || fail "could not edit config.h"
make >"$W/build2.log" 2>&1 || { tail -20 "$W/build2.log"; fail "incremental make failed"; }
./bin/sensorstat data/readings.csv > "$W/out60.txt" 2>&1 || fail "sensorstat failed after rebuild"
diff -u /tests/expected_60.txt "$W/out60.txt" || fail "header change was not picked up by make"

rm -rf "$W"
echo PASS
verdict_pass
