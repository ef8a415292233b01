#!/bin/bash
# Verifier for pip-offline-lock-withdrawn-release
. /tests/verdict.sh
fail() { echo "FAIL: $*"; exit 0; }

S=/app/service
( cd "$S" && sha256sum -c --quiet /tests/inputs.sha256 ) || fail "requirements.in / app.py / WITHDRAWN.txt modified"
[ "$(ls /app/wheelhouse | wc -l)" = 18 ] || fail "wheel mirror modified"
[ -f "$S/requirements.lock" ] || fail "requirements.lock missing"

# lock file: exact lines (names compared case/separator-insensitively)
python3 -I - "$S/requirements.lock" > /tmp/lock.norm <<'PY' || fail "lock file has invalid lines"
import re, sys
lines = [l.rstrip("\n\r") for l in open(sys.argv[1])]
while lines and lines[-1].strip() == "":
    lines.pop()
out = []
for l in lines:
    m = re.fullmatch(r"([A-Za-z0-9][A-Za-z0-9._-]*)==([0-9][0-9A-Za-z.]*)", l.strip())
    if not m or l != l.strip():
        sys.exit(f"bad line: {l!r}")
    out.append(re.sub(r"[-_.]+", "-", m.group(1)).lower() + "==" + m.group(2))
if out != sorted(out):
    sys.exit("lock file not sorted")
print("\n".join(out))
PY
diff -u /tests/expected.lock /tmp/lock.norm || fail "lock file content differs from the correct resolution"

PY="$S/.venv/bin/python"
[ -x "$PY" ] || fail "virtualenv python missing"
[ -f "$S/.venv/pyvenv.cfg" ] || fail "not a virtual environment"
[ "$(readlink -f "$PY")" = "$(readlink -f /usr/bin/python3)" ] || fail "the venv's python is not the system interpreter"
grep -qi 'include-system-site-packages *= *true' "$S/.venv/pyvenv.cfg" && fail "venv must not use system site-packages"
(cd /tmp && "$PY" /tests/installed.py) > /tmp/venv.list 2>/tmp/venv.err || { cat /tmp/venv.err; fail "cannot inspect venv"; }
diff -u /tests/expected.lock /tmp/venv.list || fail "venv contents differ from the lock"
(cd /tmp && "$PY" "$S/app.py") > /tmp/app.out 2>&1 || { cat /tmp/app.out; fail "app.py does not run in the venv"; }
grep -qx 'acme-http 2.2.1' /tmp/app.out || fail "app does not import the locked acme-http"

echo PASS
verdict_pass
