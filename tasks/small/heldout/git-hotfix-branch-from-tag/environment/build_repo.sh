#!/bin/bash
# Builds the billing repository under $1 deterministically (the verifier rebuilds it to compare).
set -e
R="$1/billing"
export GIT_AUTHOR_NAME="Olu Adeyemi" GIT_AUTHOR_EMAIL="olu@billing.example" GIT_COMMITTER_NAME="Olu Adeyemi" GIT_COMMITTER_EMAIL="olu@billing.example"
N=0
commit() {
  N=$((N + 1))
  export GIT_AUTHOR_DATE="2024-04-$(printf %02d $N)T09:30:00+0000" GIT_COMMITTER_DATE="2024-04-$(printf %02d $N)T09:30:00+0000"
  git add -A
  git commit -q -m "$1"
}
mkdir -p "$R"
cd "$R"
git init -q -b main
git config user.name "Olu Adeyemi"
git config user.email "olu@billing.example"
echo "1.0.0" > VERSION; printf 'TAX = 0.19\n' > tax.py; commit "Initial billing module"
git tag -a release-1.0.0 -m "billing 1.0.0"
printf 'def pdf(invoice):\n    return b"%%PDF"\n' > export.py; commit "Add invoice PDF export"
echo "1.1.0" > VERSION; commit "Bump version to 1.1.0"
git tag -a release-1.1.0 -m "billing 1.1.0"
printf 'TAX = {"DE": 0.19, "FR": 0.20}\n' > tax.py; commit "Refactor tax tables"
