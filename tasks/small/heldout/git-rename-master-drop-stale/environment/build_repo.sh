#!/bin/bash
# Builds the storefront repository under $1 deterministically (the verifier rebuilds it to compare).
set -e
R="$1/storefront"
export GIT_AUTHOR_NAME="Mira Jensen" GIT_AUTHOR_EMAIL="mira@storefront.example" GIT_COMMITTER_NAME="Mira Jensen" GIT_COMMITTER_EMAIL="mira@storefront.example"
N=0
commit() {
  N=$((N + 1))
  export GIT_AUTHOR_DATE="2024-03-$(printf %02d $N)T14:00:00+0000" GIT_COMMITTER_DATE="2024-03-$(printf %02d $N)T14:00:00+0000"
  git add -A
  git commit -q -m "$1"
}
mkdir -p "$R"
cd "$R"
git init -q -b master
git config user.name "Mira Jensen"
git config user.email "mira@storefront.example"
printf '# storefront\n\nThe shop front end.\n' > README.md; commit "Initial storefront skeleton"
printf '<h1>Shop</h1>\n' > index.html; commit "Add landing page"
git branch old-experiment
printf '<h1>Shop</h1>\n<canvas id="3d"></canvas>\n' > index.html; git checkout -q old-experiment; commit "Try a 3D product viewer"
git checkout -q master
printf 'body { font-family: sans-serif; }\n' > style.css; commit "Add base stylesheet"
git checkout -q -b feature/search
printf '<form action="/search"><input name="q"></form>\n' > search.html; commit "Add search form"
git checkout -q master
printf '<h1>Shop</h1>\n<p>Free shipping over 50 EUR</p>\n' > index.html; commit "Announce free shipping"
