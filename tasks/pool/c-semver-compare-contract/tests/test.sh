#!/bin/bash
# Verifier for c-semver-compare-contract
. /tests/verdict.sh
fail() { echo "FAIL: $*"; exit 0; }

S=/app/semver
cmp -s $S/include/semver.h /tests/semver.h.orig || fail "the header contract was modified"
( cd $S && sha256sum -c --quiet /tests/tools.sha256 ) || fail "tools/ was modified"
W=$(mktemp -d)
gcc -O2 -Wall -std=c11 -I/tests/hdr /tests/check_semver.c $S/src/semver.c -o "$W/check" 2> "$W/cc.log" || { cat "$W/cc.log"; fail "semver.c does not compile"; }
timeout 20 "$W/check" || fail "contract checks failed"
gcc -O1 -g -fsanitize=address,undefined -fno-sanitize-recover=undefined -std=c11 -I/tests/hdr /tests/check_semver.c $S/src/semver.c -o "$W/check_asan" 2> "$W/cc2.log" \
  && { ASAN_OPTIONS=detect_leaks=0 timeout 60 "$W/check_asan" > "$W/asan.log" 2>&1 || { tail -30 "$W/asan.log"; fail "memory/UB errors under sanitizers"; }; }

cp -a $S "$W/proj" && cd "$W/proj" || fail "copy"
make clean > /dev/null 2>&1; make > "$W/make.log" 2>&1 || { tail "$W/make.log"; fail "make failed"; }
./semver-sort < /tests/sort_in.txt > "$W/sorted.txt" 2> "$W/sorted.err" || fail "semver-sort failed"
diff -u /tests/sort_out.txt "$W/sorted.txt" || fail "semver-sort output wrong"
[ "$(wc -l < "$W/sorted.err")" = 2 ] || fail "semver-sort should report exactly 2 invalid lines"

cd / && rm -rf "$W"
echo PASS
verdict_pass
