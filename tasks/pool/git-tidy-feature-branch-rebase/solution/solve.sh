#!/bin/bash
set -e
cd /app/notes-api

# step[easy-to-miss]: keep the current tip as backup/feature-tags before rewriting
git branch backup/feature-tags feature/tags

# step: autosquash rebase onto main (drops the merge commit; stops on the ROUTES conflict)
git checkout -q feature/tags
GIT_SEQUENCE_EDITOR=true git rebase -i --autosquash main || true

# step: resolve the ROUTES conflict like the old merge did (main's archive route first, then the tag routes)
while [ -d .git/rebase-merge ]; do
  python3 - <<'PY'
import re
p = "notes/routes.py"
s = open(p).read()
s = re.sub(r"<<<<<<< [^\n]*\n(.*?)=======\n(.*?)>>>>>>> [^\n]*\n",
           lambda m: m.group(1) + m.group(2), s, flags=re.S)
open(p, "w").write(s)
PY
  git add -A
  PYTHONDONTWRITEBYTECODE=1 python3 -m unittest discover -s tests
  GIT_EDITOR=true git rebase --continue || true
done
git log --oneline main~1..feature/tags

# step: publish the rewritten branch
git push --force-with-lease origin feature/tags
