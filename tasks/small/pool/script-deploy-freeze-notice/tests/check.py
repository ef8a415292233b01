import json, os, stat, subprocess, sys

FAILS = []


def fail(msg):
    FAILS.append(msg)


def text_of(path):
    """The file's text, or None (and a failure) when it is missing."""
    if os.path.islink(path) or not os.path.isfile(path):
        fail(f"{path} is missing or not a regular file")
        return None
    with open(path, encoding="utf-8", errors="replace") as f:
        return f.read()


def lines_of(path):
    """The file's lines without trailing spaces (a missing final newline is tolerated), or None."""
    text = text_of(path)
    return None if text is None else [line.rstrip() for line in text.splitlines()]


def mode_of(path):
    return stat.S_IMODE(os.lstat(path).st_mode)


def expect_mode(path, want):
    if not os.path.lexists(path):
        fail(f"{path} is missing")
    elif os.path.islink(path):
        fail(f"{path} became a symlink")
    elif mode_of(path) != want:
        fail(f"{path}: mode {mode_of(path):04o}, expected {want:04o}")


def expect_text(path, want):
    got = text_of(path)
    if got is not None and got != want:
        fail(f"{path} was changed")


def finish():
    for m in FAILS:
        print("FAIL:", m)
    if FAILS:
        sys.exit(1)
    print("all checks passed")


P = "/app/bin/freeze-notice.sh"
WANT = "Deploys are frozen until Monday 09:00."
if os.path.islink(P) or not os.path.isfile(P):
    fail(f"{P} is missing or not a regular file")
elif not os.access(P, os.X_OK) or not mode_of(P) & 0o100:
    fail(f"{P} is not executable")
else:
    try:
        r = subprocess.run([P], capture_output=True, text=True, timeout=10, cwd="/tmp", stdin=subprocess.DEVNULL,
                           env={"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"})
        out = [line.rstrip() for line in r.stdout.splitlines() if line.strip()]
        if r.returncode != 0 or out != [WANT]:
            fail(f"running {P}: exit {r.returncode}, printed {r.stdout[:200]!r}, expected exit 0 and {WANT!r}"
                 f" {r.stderr.strip()[-200:]!r}")
    except (OSError, subprocess.TimeoutExpired) as e:
        fail(f"running {P}: {e!r}")
finish()
