#!/bin/bash
set -e
cd /app/site
# step: find the bad commit
git log --oneline
# step[easy-to-miss]: revert it with a new commit, keeping the later work
c=$(git log --format=%H --grep='^Change footer color to red$' main)
git revert --no-edit "$c"
git log --oneline -3
