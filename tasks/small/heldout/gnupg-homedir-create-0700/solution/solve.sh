#!/bin/bash
set -e
# step: create both directories
mkdir -p /app/home/build/.gnupg/private-keys-v1.d
# step[easy-to-miss]: 0700 on both, .gnupg included (mkdir -p gives parents the default mode)
chmod 0700 /app/home/build/.gnupg /app/home/build/.gnupg/private-keys-v1.d
ls -ld /app/home/build /app/home/build/.gnupg /app/home/build/.gnupg/private-keys-v1.d
