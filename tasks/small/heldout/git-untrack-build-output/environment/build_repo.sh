#!/bin/bash
# Builds the gadget repository under $1 deterministically (the verifier rebuilds it to compare).
set -e
R="$1/gadget"
export GIT_AUTHOR_NAME="Ravi Menon" GIT_AUTHOR_EMAIL="ravi@gadget.example" GIT_COMMITTER_NAME="Ravi Menon" GIT_COMMITTER_EMAIL="ravi@gadget.example"
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
git config user.name "Ravi Menon"
git config user.email "ravi@gadget.example"
mkdir -p src build
printf 'int main(void) { return 0; }\n' > src/main.c
printf 'build/gadget: src/main.c\n\tcc -o $@ $<\n' > Makefile
printf 'fake object\n' > build/main.o
printf 'fake binary\n' > build/gadget
commit "Initial gadget"
printf '# gadget\n' > README.md; commit "Add README"
