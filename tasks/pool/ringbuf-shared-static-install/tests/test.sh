#!/bin/bash
# Verifier for ringbuf-shared-static-install
. /tests/verdict.sh
fail() { echo "FAIL: $*"; exit 0; }

D=/app/dist
SO=$D/lib/libringbuf.so.1.2.0
[ -f "$SO" ] && [ ! -L "$SO" ] || fail "libringbuf.so.1.2.0 missing or not a regular file"
[ -f "$D/lib/libringbuf.a" ] || fail "libringbuf.a missing"
[ -f "$D/include/ringbuf.h" ] || fail "header missing"
cmp -s "$D/include/ringbuf.h" /tests/ringbuf.h.orig || fail "installed header differs from the original"
cmp -s /app/ringbuf/include/ringbuf.h /tests/ringbuf.h.orig || fail "public header was modified"
for l in libringbuf.so.1 libringbuf.so; do
  [ -L "$D/lib/$l" ] || fail "$l is not a symlink"
  [ "$(readlink -f "$D/lib/$l")" = "$(readlink -f "$SO")" ] || fail "$l does not point to libringbuf.so.1.2.0"
done
file -L "$SO" | grep -q 'ELF.*shared object' || fail "libringbuf.so.1.2.0 is not a shared object"
readelf -d "$SO" | grep -q 'SONAME.*\[libringbuf\.so\.1\]' || fail "wrong or missing SONAME"

# exported ABI
EXPORTS=$(nm -D --defined-only "$SO" | awk '$2 ~ /^[TtWDdBbRrVvi]$/ {sub(/@.*/, "", $3); print $3}' | grep '^rb_' | sort)
for f in rb_create rb_destroy rb_write rb_read rb_used rb_capacity rb_version; do
  echo "$EXPORTS" | grep -qx "$f" || fail "$f not exported from the shared library"
done
if nm -D --defined-only "$SO" | grep -q 'rb_internal'; then fail "internal helpers are exported"; fi

# static library works on its own
W=$(mktemp -d)
gcc -I"$D/include" /tests/check_api.c "$D/lib/libringbuf.a" -o "$W/t_static" 2>"$W/e1" || { cat "$W/e1"; fail "cannot link against libringbuf.a"; }
ldd "$W/t_static" | grep -q libringbuf && fail "static test unexpectedly depends on the shared lib"
"$W/t_static" | grep -qx api-ok || fail "static library misbehaves"

# shared library via -L/-l
gcc -I"$D/include" /tests/check_api.c -L"$D/lib" -lringbuf -o "$W/t_shared" 2>"$W/e2" || { cat "$W/e2"; fail "cannot link with -lringbuf"; }
readelf -d "$W/t_shared" | grep -q 'NEEDED.*\[libringbuf\.so\.1\]' || fail "programs do not record libringbuf.so.1 as NEEDED"
LD_LIBRARY_PATH="$D/lib" "$W/t_shared" | grep -qx api-ok || fail "shared library misbehaves"

# demo program
B=$D/bin/rbdemo
[ -x "$B" ] || fail "rbdemo missing"
env -u LD_LIBRARY_PATH ldd "$B" > "$W/ldd.txt" 2>&1
grep -Eq 'libringbuf\.so\.1 => /app/dist/lib/+libringbuf\.so\.1 ' "$W/ldd.txt" || { cat "$W/ldd.txt"; fail "rbdemo does not resolve libringbuf.so.1 from /app/dist/lib"; }
(cd / && env -u LD_LIBRARY_PATH "$B") > "$W/demo.txt" 2>&1 || fail "rbdemo does not run"
diff -u /tests/expected_demo.txt "$W/demo.txt" || fail "rbdemo output differs"

rm -rf "$W"
echo PASS
verdict_pass
