#!/bin/bash
set -e
cd /app/ringbuf
# step: compile position-independent objects
mkdir -p build /app/dist/lib /app/dist/include /app/dist/bin
for f in ringbuf rb_internal; do
  gcc -O2 -Wall -fPIC -Iinclude -c src/$f.c -o build/$f.o
done
# step: build the static library
ar rcs /app/dist/lib/libringbuf.a build/ringbuf.o build/rb_internal.o
# step: build the shared library with its SONAME and symlinks, install the header
gcc -shared -Wl,-soname,libringbuf.so.1 -o /app/dist/lib/libringbuf.so.1.2.0 build/ringbuf.o build/rb_internal.o
ln -sf libringbuf.so.1.2.0 /app/dist/lib/libringbuf.so.1
ln -sf libringbuf.so.1 /app/dist/lib/libringbuf.so
install -m 644 include/ringbuf.h /app/dist/include/ringbuf.h
# step: build the demo against the shared library with an rpath
gcc -O2 -Iinclude demo/rbdemo.c -L/app/dist/lib -lringbuf -Wl,-rpath,/app/dist/lib -o /app/dist/bin/rbdemo
/app/dist/bin/rbdemo
# step[easy-to-miss]: relink the shared library exporting only the public API (version script)
cat > build/libringbuf.map <<'MAP'
RINGBUF_1 {
  global:
    rb_create; rb_destroy; rb_write; rb_read; rb_used; rb_capacity; rb_version;
  local:
    *;
};
MAP
gcc -shared -Wl,-soname,libringbuf.so.1 -Wl,--version-script,build/libringbuf.map \
    -o /app/dist/lib/libringbuf.so.1.2.0 build/ringbuf.o build/rb_internal.o
nm -D --defined-only /app/dist/lib/libringbuf.so.1.2.0
