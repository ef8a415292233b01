#!/bin/bash
set -e
cd /app/mailer
# step: see what is changed and what is deleted
git status --short
# step[easy-to-miss]: restore only the deleted file, leaving the edits in welcome.txt alone
git checkout HEAD -- config/settings.toml
git status --short
