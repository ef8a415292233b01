#!/bin/bash
# Builds the notes repository under $1 deterministically (the verifier rebuilds it to compare).
set -e
R="$1/notes"
export GIT_AUTHOR_NAME="Marta Lopez" GIT_AUTHOR_EMAIL="marta@notes.example" GIT_COMMITTER_NAME="Marta Lopez" GIT_COMMITTER_EMAIL="marta@notes.example"
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
git config user.name "Marta Lopez"
git config user.email "marta@notes.example"
printf -- '- renew passport\n- call the plumber\n' > todo.txt
printf '# Ideas\n\n- balcony garden\n' > ideas.md
commit "Start notes"
printf -- '- book train to Lyon\n' >> todo.txt
printf 'Dear landlord,\nthe heating is broken again.\n' > draft.txt
