#!/bin/bash
set -e
cd /app/logpack
# step: configure with CRC support, build and run the test suite
cmake -S . -B build -DLOGPACK_WITH_CRC=ON
cmake --build build
ctest --test-dir build --output-on-failure
# step: install into the staging prefix
cmake --install build --prefix /app/stage
# step[easy-to-miss]: give the installed binary an $ORIGIN-relative RPATH and reinstall
cmake -S . -B build -DLOGPACK_WITH_CRC=ON '-DCMAKE_INSTALL_RPATH=$ORIGIN/../lib'
cmake --build build
cmake --install build --prefix /app/stage
readelf -d /app/stage/bin/logpack | grep -E 'RUNPATH|RPATH'
