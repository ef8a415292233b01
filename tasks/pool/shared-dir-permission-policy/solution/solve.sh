#!/bin/bash
set -e
cd /app/srv/projects
# step: directories 2775 (find -type d never follows symlinks, chmod on real dirs only)
find . -type d -exec chmod 2775 {} +
# step: regular files 0664, or 0775 when they start with "#!"
find . -type f -print0 | while IFS= read -r -d '' f; do
  if [ "$(head -c 2 "$f")" = '#!' ]; then chmod 0775 "$f"; else chmod 0664 "$f"; fi
done
# step[easy-to-miss]: lock down everything under directories named "private"
find . -type d -name private -print0 | while IFS= read -r -d '' p; do
  find "$p" -type d -exec chmod 2770 {} +
  find "$p" -type f -print0 | while IFS= read -r -d '' f; do
    if [ "$(head -c 2 "$f")" = '#!' ]; then chmod 0770 "$f"; else chmod 0660 "$f"; fi
  done
done
