#!/bin/bash
set -e
cd /app/firmware
# step[easy-to-miss]: write the exact size in bytes
stat -c %s router-v2.bin > router-v2.size
# step: write the checksum in sha256sum format
sha256sum router-v2.bin > router-v2.sha256
cat router-v2.size router-v2.sha256
