#!/bin/bash
set -e
cd /app/gadget
# step: add the ignore rule
echo "build/" > .gitignore
# step[easy-to-miss]: untrack build/ but keep the files, and commit
git rm -r -q --cached build
git add .gitignore
git commit -q -m "Stop tracking build output"
git status --short
