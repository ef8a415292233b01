#!/bin/bash
# Verifier for make-install-destdir-pkgconfig
. /tests/verdict.sh
fail() { echo "FAIL: $*"; exit 0; }

check_tree() {  # $1 = root (DESTDIR), $2 = prefix
  local R="$1$2"
  [ -f "$R/bin/thash" ] && [ -x "$R/bin/thash" ] || fail "$R/bin/thash missing"
  [ "$(stat -c %a "$R/bin/thash")" = 755 ] || fail "thash mode is not 755"
  [ -f "$R/lib/libtinyhash.so.2.0.1" ] && [ ! -L "$R/lib/libtinyhash.so.2.0.1" ] || fail "libtinyhash.so.2.0.1 missing"
  for l in libtinyhash.so.2 libtinyhash.so; do
    [ -L "$R/lib/$l" ] || fail "$R/lib/$l is not a symlink"
    [ "$(readlink -f "$R/lib/$l")" = "$(readlink -f "$R/lib/libtinyhash.so.2.0.1")" ] || fail "$l points elsewhere"
  done
  [ -f "$R/include/tinyhash.h" ] || fail "header missing"
  [ "$(stat -c %a "$R/include/tinyhash.h")" = 644 ] || fail "header mode is not 644"
  [ -f "$R/share/man/man1/thash.1" ] || fail "man page missing"
  [ "$(stat -c %a "$R/share/man/man1/thash.1")" = 644 ] || fail "man page mode is not 644"
  local PC="$R/lib/pkgconfig/tinyhash.pc"
  [ -f "$PC" ] || fail "tinyhash.pc missing under $R"
  [ "$(PKG_CONFIG_PATH="$R/lib/pkgconfig" PKG_CONFIG_LIBDIR=/nonexistent pkg-config --modversion tinyhash)" = 2.0.1 ] || fail "pkg-config --modversion is not 2.0.1"
  local P
  P=$(PKG_CONFIG_PATH="$R/lib/pkgconfig" PKG_CONFIG_LIBDIR=/nonexistent pkg-config --variable=prefix tinyhash)
  [ "$P" = "$2" ] || fail "tinyhash.pc prefix is '$P', expected '$2'"
  if [ -n "$1" ] && grep -rIl -- "$1" "$1" >/dev/null 2>&1; then
    grep -rIl -- "$1" "$1"; fail "staging path leaked into installed files"
  fi
}

W=$(mktemp -d)
cp -a /app/tinyhash "$W/src" || fail "copy failed"
cd "$W/src" || fail "cd"
make clean >/dev/null 2>&1
rm -f src/*.o thash libtinyhash.so*
make > "$W/b.log" 2>&1 || { tail "$W/b.log"; fail "make failed"; }
make install PREFIX=/usr DESTDIR="$W/root" > "$W/i.log" 2>&1 || { tail "$W/i.log"; fail "make install PREFIX=/usr DESTDIR=... failed"; }
check_tree "$W/root" /usr

# compile a consumer through pkg-config against the staged tree
FLAGS=$(PKG_CONFIG_SYSROOT_DIR="$W/root" PKG_CONFIG_LIBDIR="$W/root/usr/lib/pkgconfig" pkg-config --cflags --libs tinyhash) || fail "pkg-config failed"
gcc /tests/consumer.c $FLAGS -o "$W/consumer" 2> "$W/c.log" || { cat "$W/c.log"; fail "consumer does not build via pkg-config"; }
[ "$(LD_LIBRARY_PATH="$W/root/usr/lib" "$W/consumer")" = "1a47e90b 2.0.1" ] || fail "consumer output wrong"
[ "$(LD_LIBRARY_PATH="$W/root/usr/lib" "$W/root/usr/bin/thash" -64 hello)" = "a430d84680aabd0b  hello" ] || fail "installed thash broken"
readelf -d "$W/root/usr/bin/thash" | grep -q 'NEEDED.*libtinyhash\.so\.2\]' || fail "thash not linked against libtinyhash.so.2"

# default prefix
make install DESTDIR="$W/root2" > "$W/i2.log" 2>&1 || { tail "$W/i2.log"; fail "make install DESTDIR=... (default prefix) failed"; }
check_tree "$W/root2" /usr/local

# the staged package root
[ -d /app/pkgroot/usr ] || fail "/app/pkgroot not staged"
check_tree /app/pkgroot /usr

cd / && rm -rf "$W"
echo PASS
verdict_pass
