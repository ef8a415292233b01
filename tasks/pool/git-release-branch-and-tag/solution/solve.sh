#!/bin/bash
set -e
cd /app/webshop

# step: create release/2.4 at the "Add CSV export (#212)" commit
base=$(git log --format=%H --grep='^Add CSV export (#212)$' main)
git switch -c release/2.4 "$base"

# step: bump VERSION and date the CHANGELOG in one "Release 2.4.0" commit
echo 2.4.0 > VERSION
sed -i 's/^## Unreleased$/## 2.4.0 - 2024-05-14/' CHANGELOG.md
git commit -qam "Release 2.4.0"

# step: annotated tag
git tag -a v2.4.0 -m "webshop 2.4.0"

# step: publish the branch
git push -u origin release/2.4

# step[easy-to-miss]: tags are not pushed with the branch - push it explicitly
git push origin v2.4.0
