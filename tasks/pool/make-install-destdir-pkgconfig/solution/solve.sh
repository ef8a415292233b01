#!/bin/bash
set -e
cd /app/tinyhash
# step: rewrite the Makefile with PREFIX/DESTDIR-aware install rules
cat > Makefile <<'MK'
VERSION = 2.0.1
SOMAJOR = 2
CC      = gcc
CFLAGS  = -O2 -Wall -fPIC -Iinclude
PREFIX  ?= /usr/local
DESTDIR ?=
BINDIR  = $(PREFIX)/bin
LIBDIR  = $(PREFIX)/lib
INCDIR  = $(PREFIX)/include
MANDIR  = $(PREFIX)/share/man
LIB     = libtinyhash.so.$(VERSION)

all: $(LIB) thash

$(LIB): src/tinyhash.o
	$(CC) -shared -Wl,-soname,libtinyhash.so.$(SOMAJOR) -o $@ $^
	ln -sf $@ libtinyhash.so.$(SOMAJOR)
	ln -sf libtinyhash.so.$(SOMAJOR) libtinyhash.so

thash: src/thash.o $(LIB)
	$(CC) -o $@ src/thash.o -L. -ltinyhash

src/%.o: src/%.c include/tinyhash.h
	$(CC) $(CFLAGS) -c $< -o $@

install: all
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(LIBDIR) $(DESTDIR)$(INCDIR) $(DESTDIR)$(MANDIR)/man1
	install -m 755 thash $(DESTDIR)$(BINDIR)/thash
	install -m 755 $(LIB) $(DESTDIR)$(LIBDIR)/$(LIB)
	ln -sf $(LIB) $(DESTDIR)$(LIBDIR)/libtinyhash.so.$(SOMAJOR)
	ln -sf libtinyhash.so.$(SOMAJOR) $(DESTDIR)$(LIBDIR)/libtinyhash.so
	install -m 644 include/tinyhash.h $(DESTDIR)$(INCDIR)/tinyhash.h
	install -m 644 man/thash.1 $(DESTDIR)$(MANDIR)/man1/thash.1

clean:
	rm -f src/*.o thash libtinyhash.so* tinyhash.pc

.PHONY: all install clean
MK
make
# step: stage the package root
make install PREFIX=/usr DESTDIR=/app/pkgroot
# step[easy-to-miss]: generate tinyhash.pc with the final PREFIX (not DESTDIR), install it and restage
python3 - <<'PY'
p = "Makefile"
s = open(p).read()
s = s.replace("all: $(LIB) thash\n", "all: $(LIB) thash tinyhash.pc\n\n"
              "tinyhash.pc: tinyhash.pc.in Makefile\n"
              "\tsed -e 's|@prefix@|$(PREFIX)|' -e 's|@version@|$(VERSION)|' $< > $@\n\n"
              ".PHONY: tinyhash.pc\n", 1)
s = s.replace("\tinstall -m 644 man/thash.1 $(DESTDIR)$(MANDIR)/man1/thash.1\n",
              "\tinstall -m 644 man/thash.1 $(DESTDIR)$(MANDIR)/man1/thash.1\n"
              "\tinstall -d $(DESTDIR)$(LIBDIR)/pkgconfig\n"
              "\tinstall -m 644 tinyhash.pc $(DESTDIR)$(LIBDIR)/pkgconfig/tinyhash.pc\n", 1)
open(p, "w").write(s)
PY
make install PREFIX=/usr DESTDIR=/app/pkgroot
cat /app/pkgroot/usr/lib/pkgconfig/tinyhash.pc
