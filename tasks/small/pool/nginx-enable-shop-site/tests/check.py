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


AVAILABLE = {'admin.conf': 'server {\n    listen 8443;\n    server_name admin.example.com;\n    allow 10.0.0.0/8;\n    deny all;\n}\n', 'default.conf': 'server {\n    listen 80 default_server;\n    return 444;\n}\n', 'shop.conf': 'server {\n    listen 80;\n    server_name shop.example.com;\n    root /srv/shop/public;\n}\n'}
A = "/app/nginx/sites-available/"
E = "/app/nginx/sites-enabled/"
LINKS = {"default.conf": A + "default.conf", "shop.conf": A + "shop.conf"}
for name, text in AVAILABLE.items():
    expect_text(A + name, text)
if not os.path.isdir(E) or os.path.islink(E.rstrip("/")):
    fail(f"{E} is missing or not a directory")
else:
    if sorted(os.listdir(E)) != sorted(LINKS):
        fail(f"{E} holds {sorted(os.listdir(E))}, expected {sorted(LINKS)}")
    for name, target in LINKS.items():
        p = E + name
        if not os.path.islink(p):
            fail(f"{p} is not a symbolic link")
        elif os.readlink(p) != target:
            fail(f"{p} points to {os.readlink(p)!r}, expected {target!r}")
finish()
