#!/bin/bash
set -e
cd /app/csvq
# step[easy-to-miss]: apply only the patches listed in patches/series, in order (0003 is commented out)
grep -v '^[[:space:]]*#' patches/series | grep -v '^[[:space:]]*$' | while read -r p; do
  patch -p1 < "patches/$p"
done
# step: build and install the binary
make clean && make
mkdir -p /app/bin
install -m 755 csvq /app/bin/csvq
/app/bin/csvq customer /app/data/sample.csv
