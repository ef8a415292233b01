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

SIZES = {"installer.deb": 90112, "team-photo.png": 61440, "report.pdf": 20480, "archive/backup-2023.tar": 204800}

lines = lines_of("/app/largest.txt")
if lines is not None:
    got = [line.strip() for line in lines if line.strip()]
    if got != ["installer.deb"]:
        if got and "backup-2023.tar" in got[0]:
            fail("largest.txt names the file in archive/, but only files directly in /app/downloads count")
        else:
            fail(f"largest.txt holds {got[:5]!r}, expected just the file name of the largest file")
for name, size in SIZES.items():
    path = os.path.join("/app/downloads", name)
    if not os.path.isfile(path) or os.path.getsize(path) != size:
        fail(f"{path} was deleted, moved or changed")
if not os.path.isfile("/app/downloads/notes.txt"):
    fail("/app/downloads/notes.txt was deleted or moved")
finish()
