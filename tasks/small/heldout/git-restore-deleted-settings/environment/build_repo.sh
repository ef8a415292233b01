#!/bin/bash
# Builds the mailer repository under $1 deterministically (the verifier rebuilds it to compare).
set -e
R="$1/mailer"
export GIT_AUTHOR_NAME="Mail Dev" GIT_AUTHOR_EMAIL="dev@mailer.example" GIT_COMMITTER_NAME="Mail Dev" GIT_COMMITTER_EMAIL="dev@mailer.example"
N=0
commit() {
  N=$((N + 1))
  export GIT_AUTHOR_DATE="2024-05-$(printf %02d $N)T14:00:00+0000" GIT_COMMITTER_DATE="2024-05-$(printf %02d $N)T14:00:00+0000"
  git add -A
  git commit -q -m "$1"
}
mkdir -p "$R/config" "$R/templates"
cd "$R"
git init -q -b main
git config user.name "Mail Dev"
git config user.email "dev@mailer.example"
printf 'import tomllib\n\nwith open("config/settings.toml", "rb") as f:\n    settings = tomllib.load(f)\nprint("sending via", settings["smtp"]["host"])\n' > send.py
printf '[smtp]\nhost = "smtp.mailer.example"\nport = 587\nstarttls = true\n\n[sender]\naddress = "news@mailer.example"\nname = "Mailer News"\n' > config/settings.toml
printf 'Hello {name},\n\nwelcome to our newsletter!\n' > templates/welcome.txt
commit "Initial mailer"
printf '[smtp]\nhost = "smtp.mailer.example"\nport = 587\nstarttls = true\n\n[sender]\naddress = "news@mailer.example"\nname = "Mailer News"\nreply_to = "support@mailer.example"\n' > config/settings.toml
commit "Add reply-to address"
# The state the user left behind: an edit in progress and the settings file deleted by accident.
printf 'Hello {name},\n\nwelcome to our newsletter! Your first issue arrives on Monday.\n\nCheers,\nThe Mailer team\n' > templates/welcome.txt
rm config/settings.toml
