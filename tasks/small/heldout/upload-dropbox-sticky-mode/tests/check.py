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

DROP = "/app/srv/dropbox"
if os.path.isdir(DROP) and not os.path.islink(DROP) and mode_of(DROP) == 0o777:
    fail(f"{DROP} is 0777: the sticky bit is missing (mode 1777)")
else:
    expect_mode(DROP, 0o1777)
expect_mode(DROP + "/app-8812.txt", 0o644)
expect_mode(DROP + "/docs-nightly.txt", 0o640)
expect_text(DROP + "/app-8812.txt", "build 8812 of the android app, signed\n")
expect_text(DROP + "/docs-nightly.txt", "nightly docs bundle, 2024-06-09\n")
finish()
