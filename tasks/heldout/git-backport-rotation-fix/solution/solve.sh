#!/bin/bash
set -e
cd /app/logship

# step[easy-to-miss]: cherry-pick the LOG-231 fix onto maint/1.x with -x so the origin is recorded
git checkout -q maint/1.x
fix=$(git log main --format=%H --grep='LOG-231')
git cherry-pick -x "$fix" || true

# step: resolve the conflict with maint's helper name (_parse_suffix) and the fixed logic
python3 - <<'PY'
import re
from pathlib import Path
p = Path("logship/rotate.py")
s = p.read_text()
fixed = ('    """Index the next rotated file of *base* should get (one past the highest)."""\n'
         '    indexes = [i for i in (_parse_suffix(n, base) for n in names) if i is not None]\n'
         '    return max(indexes, default=0) + 1\n')
s, n = re.subn(r"<<<<<<< [^\n]*\n.*?\n>>>>>>> [^\n]*\n", lambda m: fixed, s, flags=re.S)
assert n == 1, n
p.write_text(s)
PY
PYTHONDONTWRITEBYTECODE=1 python3 -m unittest discover -s tests
git add logship/rotate.py tests/test_rotate.py

# step: conclude the cherry-pick (keeps author, message and the -x line)
GIT_EDITOR=true git cherry-pick --continue
