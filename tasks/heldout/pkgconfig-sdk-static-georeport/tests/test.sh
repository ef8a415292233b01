#!/bin/bash
# Verifier for pkgconfig-sdk-static-georeport
. /tests/verdict.sh
fail() { echo "FAIL: $*"; exit 0; }

G=/app/georeport
( cd $G && sha256sum -c --quiet /tests/src.sha256 ) || fail "georeport.c was modified"
bash /tests/check_bin.sh $G/georeport || fail "built binary is not right"
[ -f $G/report.txt ] || fail "report.txt missing"
diff -u /tests/expected_report.txt $G/report.txt || fail "report.txt differs"

# a plain make in the same environment must reproduce it
W=$(mktemp -d)
cp -a $G "$W/g" || fail "copy failed"
cd "$W/g" || fail "cd"
rm -f georeport *.o
make > "$W/make.log" 2>&1 || { tail "$W/make.log"; fail "plain make failed"; }
bash /tests/check_bin.sh "$W/g/georeport" || fail "plain make does not produce the right binary"

cd / && rm -rf "$W"
echo PASS
verdict_pass
