#!/bin/bash
# Builds the site repository under $1 deterministically (the verifier rebuilds it to compare).
set -e
R="$1/site"
export GIT_AUTHOR_NAME="Priya Nair" GIT_AUTHOR_EMAIL="priya@site.example" GIT_COMMITTER_NAME="Priya Nair" GIT_COMMITTER_EMAIL="priya@site.example"
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
git config user.name "Priya Nair"
git config user.email "priya@site.example"
printf '<html><body><nav><a href="index.html">Home</a></nav><footer>ACME</footer></body></html>\n' > index.html
printf 'body { font-family: sans-serif; }\n\nnav { padding: 4px; }\n\nfooter {\n  color: #333333;\n}\n' > style.css
commit "Initial site"
printf '<html><body><h1>About us</h1></body></html>\n' > about.html; commit "Add about page"
sed -i 's/color: #333333;/color: #ff0000;/' style.css; commit "Change footer color to red"
printf '<html><body><h1>Contact</h1><p>hello@acme.example</p></body></html>\n' > contact.html
sed -i 's|<a href="index.html">Home</a>|<a href="index.html">Home</a> <a href="contact.html">Contact</a>|' index.html
commit "Add contact page"
