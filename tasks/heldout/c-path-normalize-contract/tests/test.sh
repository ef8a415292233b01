#!/bin/bash
# Verifier for c-path-normalize-contract
. /tests/verdict.sh
fail() { echo "FAIL: $*"; exit 0; }

S=/app/pathnorm
cmp -s $S/include/pathnorm.h /tests/hdr/pathnorm.h || fail "header was modified"
( cd $S && sha256sum -c --quiet /tests/tools.sha256 ) || fail "tools/ was modified"
W=$(mktemp -d)
verdict_python /tests/gen_cases.py "$W/in.txt" "$W/exp.txt" || fail "case generation"
for mode in plain asan; do
  if [ $mode = plain ]; then F="-O2"; else F="-O1 -g -fsanitize=address,undefined -fno-sanitize-recover=undefined"; fi
  gcc $F -std=c11 -I/tests/hdr /tests/harness.c $S/src/pathnorm.c -o "$W/h_$mode" 2> "$W/cc.log" || { cat "$W/cc.log"; fail "pathnorm.c does not compile ($mode)"; }
  gcc $F -std=c11 -I/tests/hdr /tests/edge.c $S/src/pathnorm.c -o "$W/e_$mode" 2>> "$W/cc.log" || { cat "$W/cc.log"; fail "pathnorm.c does not compile ($mode)"; }
  ASAN_OPTIONS=detect_leaks=1 timeout 60 "$W/h_$mode" < "$W/in.txt" > "$W/got_$mode.txt" 2> "$W/err_$mode.txt" || { tail -20 "$W/err_$mode.txt"; fail "harness crashed ($mode)"; }
  if ! cmp -s "$W/exp.txt" "$W/got_$mode.txt"; then
    python3 -I - "$W/in.txt" "$W/exp.txt" "$W/got_$mode.txt" <<'PY'
import sys
i, e, g = (open(p).read().split("\n") for p in sys.argv[1:])
bad = [(a, b, c) for a, b, c in zip(i, e, g) if b != c]
for a, b, c in bad[:8]:
    print(f"input {a[:80]!r}: expected {b[:60]!r}, got {c[:60]!r}")
print(f"{len(bad)} mismatches")
PY
    fail "wrong results ($mode)"
  fi
  ASAN_OPTIONS=detect_leaks=1 timeout 20 "$W/e_$mode" || fail "edge cases failed ($mode)"
done

cp -a $S "$W/proj" && cd "$W/proj" || fail "copy"
make clean > /dev/null 2>&1; make > "$W/make.log" 2>&1 || { tail "$W/make.log"; fail "make failed"; }
[ "$(./pnorm /a/../b//c/ ../x/..)" = "$(printf '/b/c\n..')" ] || fail "pnorm tool output wrong"
[ "$(./pnorm -j /srv/app ../logs/./today)" = "/srv/logs/today" ] || fail "pnorm -j output wrong"

cd / && rm -rf "$W"
echo PASS
verdict_pass
