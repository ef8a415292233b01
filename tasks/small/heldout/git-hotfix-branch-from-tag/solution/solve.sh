#!/bin/bash
set -e
cd /app/billing
# step[easy-to-miss]: branch off the release-1.0.0 tag
git checkout -q -b hotfix/1.0.1 release-1.0.0
# step: bump VERSION and commit
echo "1.0.1" > VERSION
git commit -q -am "Patch 1.0.1"
git log --oneline -2
