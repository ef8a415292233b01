#!/bin/bash
set -e
cd /app/widget
# step: find the release commit and look at the existing tags
git log --oneline
git tag -n
# step[easy-to-miss]: create the annotated tag on that commit
c=$(git log --format=%H --grep='^Bump version to 1.2.0$' main)
git tag -a v1.2.0 -m "Release 1.2.0" "$c"
git show -s v1.2.0
