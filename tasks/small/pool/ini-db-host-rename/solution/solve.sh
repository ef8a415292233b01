#!/bin/bash
set -e
# step: list the .ini files that mention the old host
grep -rl 'db-old.internal' /app/config --include='*.ini'
# step[easy-to-miss]: replace every occurrence (g flag) in .ini files at any depth
find /app/config -type f -name '*.ini' -exec sed -i 's/db-old\.internal/db-new.internal/g' {} +
grep -rn 'db-.*\.internal' /app/config
