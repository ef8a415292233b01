#!/bin/bash
# Builds the inventory-api repository under $1 deterministically, with release/2.3 checked out.
set -e
R="$1/inventory-api"
export GIT_AUTHOR_NAME="Inv Dev" GIT_AUTHOR_EMAIL="dev@inventory.example" GIT_COMMITTER_NAME="Inv Dev" GIT_COMMITTER_EMAIL="dev@inventory.example"
N=0
commit() {
  N=$((N + 1))
  export GIT_AUTHOR_DATE="2024-04-$(printf %02d $N)T09:00:00+0000" GIT_COMMITTER_DATE="2024-04-$(printf %02d $N)T09:00:00+0000"
  git add -A
  git commit -q -m "$1"
}
mkdir -p "$R"
cd "$R"
git init -q -b main
git config user.name "Inv Dev"
git config user.email "dev@inventory.example"
printf '# inventory-api\n\nStock levels over HTTP.\n' > README.md
printf 'def stock(sku):\n    return 0\n' > api.py
commit "Initial inventory API"
printf '2.3.0\n' > VERSION
commit "Version 2.3.0"
git branch release/2.3
printf 'def bulk_import(rows):\n    return len(rows)\n' > bulk.py
commit "Add bulk import"
git branch feature/bulk-import
git checkout -q -b hotfix/stock-rounding release/2.3
printf 'def stock(sku):\n    return round(0)\n' > api.py
commit "Round stock levels"
git checkout -q release/2.3
printf '2.3.1\n' > VERSION
commit "Version 2.3.1"
