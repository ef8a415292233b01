#!/bin/bash
# Verifier for cmake-logpack-crc-relocatable
. /tests/verdict.sh
fail() { echo "FAIL: $*"; exit 0; }

S=/app/stage
[ -x "$S/bin/logpack" ] || fail "bin/logpack missing"
[ -f "$S/include/logpack.h" ] || fail "include/logpack.h missing"
ls "$S"/lib/liblogpack.so.0* >/dev/null 2>&1 || fail "lib/liblogpack.so.0* missing"
( cd /app/logpack && sha256sum -c --quiet /tests/sources.sha256 ) || fail "C sources were modified"

if readelf -d "$S/bin/logpack" | grep -E 'R(UN)?PATH' | grep -q '/app'; then
  fail "absolute /app path recorded in the binary's RPATH/RUNPATH"
fi

W=$(mktemp -d)
mkdir -p "$W/elsewhere/opt"
cp -a "$S" "$W/elsewhere/opt/logpack" || fail "copy failed"
R="$W/elsewhere/opt/logpack"
B="$R/bin/logpack"
env -u LD_LIBRARY_PATH ldd "$B" > "$W/ldd.txt" 2>&1
grep -q "liblogpack.so.0 => $R/bin/../lib/liblogpack.so.0\|liblogpack.so.0 => $R/lib/liblogpack.so.0" "$W/ldd.txt" \
  || { cat "$W/ldd.txt"; fail "relocated logpack does not load liblogpack from its own prefix"; }

cd "$W" || fail "cd"
env -u LD_LIBRARY_PATH "$B" --features > feat.txt 2>&1 || fail "logpack --features failed"
grep -qx 'crc32: on' feat.txt || { cat feat.txt; fail "CRC support not enabled"; }

printf '2024-06-01 10:00:00 INFO boot\n2024-06-01 10:00:02 ERROR fan stalled\n' > in.log
env -u LD_LIBRARY_PATH "$B" pack in.log in.lpk >/dev/null || fail "pack failed"
env -u LD_LIBRARY_PATH "$B" verify in.lpk >/dev/null || fail "verify of an intact file failed"
env -u LD_LIBRARY_PATH "$B" unpack in.lpk out.log >/dev/null || fail "unpack failed"
cmp -s in.log out.log || fail "roundtrip mismatch"
python3 -I - <<'PY' || fail "could not corrupt file"
b = bytearray(open("in.lpk", "rb").read())
b[12] ^= 0x01
open("bad.lpk", "wb").write(bytes(b))
PY
env -u LD_LIBRARY_PATH "$B" verify bad.lpk >/dev/null
[ $? -eq 1 ] || fail "verify did not detect corruption"

cd / && rm -rf "$W"
echo PASS
verdict_pass
