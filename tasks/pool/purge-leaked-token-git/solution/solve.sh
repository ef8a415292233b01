#!/bin/bash
set -e
cd /app/repo
# step: find the token in the history and record it for revocation
git log --all -p | grep -oE 'DEPLOY_TOKEN=[A-Za-z0-9_]+' | head -1 | cut -d= -f2 > /app/leaked_token.txt
cat /app/leaked_token.txt
test -s /app/leaked_token.txt
# step[easy-to-miss]: rewrite every ref (all branches and the tag) replacing the token in any file
export TOKEN="$(cat /app/leaked_token.txt)"
FILTER_BRANCH_SQUELCH_WARNING=1 git filter-branch -f \
  --tree-filter 'grep -rlF --exclude-dir=.git "$TOKEN" . | while read -r f; do sed -i "s/$TOKEN/REDACTED/g" "$f"; done; true' \
  --tag-name-filter cat -- --all
# step: drop backup refs and reflogs, then prune the old objects
git for-each-ref --format='%(refname)' refs/original/ | xargs -r -n1 git update-ref -d
git reflog expire --expire=now --all
git gc -q --prune=now
git checkout -q main
git status --porcelain
