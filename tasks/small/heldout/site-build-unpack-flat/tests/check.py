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

FILES = {
    "index.html": '<!doctype html>\n<title>Fjord Outdoor</title>\n<link rel="stylesheet" href="css/site.css">\n'
                  '<h1>Fjord Outdoor</h1>\n<script src="js/app.js"></script>\n',
    "about.html": "<!doctype html>\n<title>About us</title>\n<p>Hiking gear since 1998.</p>\n",
    "css/site.css": "body { margin: 0; font-family: sans-serif; }\nh1 { color: #0a5; }\n",
    "js/app.js": 'document.title += " (2.4)";\n',
    "VERSION": "2.4.0\n",
}
W = "/app/www"

if os.path.isdir(W + "/site-2.4"):
    fail(f"{W}/site-2.4 exists: the files must be directly in {W}, without the top folder")
if not os.path.isdir(W):
    fail(f"{W} is missing")
else:
    for rel, text in FILES.items():
        expect_text(os.path.join(W, rel), text)
    found = sorted(os.path.relpath(os.path.join(r, f), W) for r, _, fs in os.walk(W) for f in fs)
    extra = [f for f in found if f not in FILES]
    if extra:
        fail(f"unexpected files under {W}: {extra[:10]}")
arc = "/app/incoming/site-2.4.tar.gz"
import tarfile

try:
    with tarfile.open(arc, "r:gz") as t:
        if "site-2.4/index.html" not in t.getnames():
            fail(f"{arc} was changed")
except (OSError, tarfile.TarError) as e:
    fail(f"{arc} is missing or unreadable, the archive must be kept: {e}")
finish()
