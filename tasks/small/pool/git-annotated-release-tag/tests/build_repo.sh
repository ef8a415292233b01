#!/bin/bash
# Builds the widget repository under $1 deterministically (the verifier rebuilds it to compare).
set -e
R="$1/widget"
export GIT_AUTHOR_NAME="Noor Aziz" GIT_AUTHOR_EMAIL="noor@widget.example" GIT_COMMITTER_NAME="Noor Aziz" GIT_COMMITTER_EMAIL="noor@widget.example"
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
git config user.name "Noor Aziz"
git config user.email "noor@widget.example"
echo "1.0.0" > VERSION; printf 'def widget():\n    return "w"\n' > widget.py; commit "Initial widget"
git tag -a v1.0.0 -m "Release 1.0.0"
printf 'def resize(w, h):\n    return (w, h)\n' > resize.py; commit "Add resize handle"
echo "1.1.0" > VERSION; commit "Bump version to 1.1.0"
git tag -a v1.1.0 -m "Release 1.1.0"
printf 'def resize(w, h):\n    return (round(w), round(h))\n' > resize.py; commit "Fix resize jitter"
echo "1.2.0" > VERSION; commit "Bump version to 1.2.0"
echo "1.3.0-dev" > VERSION; commit "Start 1.3 development"
printf 'DARK = True\n' > theme.py; commit "Add dark theme"
