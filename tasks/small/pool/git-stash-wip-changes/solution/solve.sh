#!/bin/bash
set -e
cd /app/notes
# step: see what is pending
git status --short
# step[easy-to-miss]: stash the edits and the untracked file in one entry
git stash push --include-untracked -m "wip before pull"
git stash list
