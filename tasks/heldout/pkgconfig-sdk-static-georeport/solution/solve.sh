#!/bin/bash
set -e
cd /app/georeport
# step: fix the relocated SDK's pkg-config prefix
sed -i 's|^prefix=/opt/geo-sdk-3.1$|prefix=/app/sdk/geo-sdk-3.1|' /app/sdk/geo-sdk-3.1/lib/pkgconfig/geo.pc
# step: link libgeo statically, pulling its private dependencies (-lm) via pkg-config --static
cat > Makefile <<'MK'
CC      = gcc
PKG     = pkg-config
CFLAGS  = -O2 -Wall $(shell $(PKG) --cflags geo)
# libgeo statically (no runtime dependency on libgeo.so), its private deps dynamically
LDLIBS  = $(shell $(PKG) --libs-only-L geo) -Wl,-Bstatic -lgeo -Wl,-Bdynamic \
          $(filter-out -lgeo,$(shell $(PKG) --static --libs-only-l geo))

georeport: georeport.c
	$(CC) $(CFLAGS) -o $@ $< $(LDLIBS)

clean:
	rm -f georeport

.PHONY: clean
MK
make clean && make
./georeport routes.txt > report.txt
# step[easy-to-miss]: the environment's PKG_CONFIG_PATH points at SDK 2.4; pin 3.1 in the Makefile and rebuild
sed -i 's|^PKG     = pkg-config$|PKG     = PKG_CONFIG_PATH=/app/sdk/geo-sdk-3.1/lib/pkgconfig pkg-config|' Makefile
make clean && make
./georeport routes.txt > report.txt
cat report.txt
