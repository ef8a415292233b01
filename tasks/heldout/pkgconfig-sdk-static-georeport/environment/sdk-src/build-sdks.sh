#!/bin/sh
# Builds the two vendor SDK drops found on this machine (run once at image build time).
set -e
mk() {  # $1 = install dir, $2 = version, $3 = extra cflags, $4 = prefix recorded in geo.pc
  d=$1; rm -rf "$d"; mkdir -p "$d/include/geo" "$d/lib/pkgconfig" /tmp/geo-build
  gcc -O2 -fPIC $3 -c geo.c -o /tmp/geo-build/geo.o
  ar rcs "$d/lib/libgeo.a" /tmp/geo-build/geo.o
  major=${2%%.*}
  gcc -shared -Wl,-soname,libgeo.so.$major -o "$d/lib/libgeo.so.$2" /tmp/geo-build/geo.o -lm
  ln -s "libgeo.so.$2" "$d/lib/libgeo.so.$major"
  ln -s "libgeo.so.$major" "$d/lib/libgeo.so"
  cp geo.h "$d/include/geo/geo.h"
  cat > "$d/lib/pkgconfig/geo.pc" <<PC
prefix=$4
libdir=\${prefix}/lib
includedir=\${prefix}/include

Name: geo
Description: Geodesy helpers (vendor SDK)
Version: $2
Libs: -L\${libdir} -lgeo
Libs.private: -lm
Cflags: -I\${includedir}
PC
  rm -rf /tmp/geo-build
}
mk /app/sdk/geo-sdk-2.4 2.4.2 "" /app/sdk/geo-sdk-2.4
mk /app/sdk/geo-sdk-3.1 3.1.0 "-DGEO_V3" /opt/geo-sdk-3.1
