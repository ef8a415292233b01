#!/bin/bash
set -e
cd /app/webshop
# step: see what is pending
git status --short
# step[easy-to-miss]: stage and commit only CHANGELOG.md, not debug.log
git add CHANGELOG.md
git commit -q -m "Update changelog for 1.4.0"
git log --oneline -3
