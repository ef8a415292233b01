#!/bin/bash
set -e
# step: preview the newest entry
head -n 10 /app/docs/CHANGELOG.md
# step[easy-to-miss]: write exactly the first 7 lines to the new file
head -n 7 /app/docs/CHANGELOG.md > /app/docs/release-notes.md
cat /app/docs/release-notes.md
