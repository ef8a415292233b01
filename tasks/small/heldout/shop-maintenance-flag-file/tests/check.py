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

P = "/app/shop/public"
INDEX = ("<?php\n// Shop front controller: show the maintenance page while the flag file exists.\n"
         "if (file_exists(__DIR__ . '/.maintenance') && filesize(__DIR__ . '/.maintenance') === 0) {\n"
         "    readfile(__DIR__ . '/maintenance.html');\n    exit;\n}\nrequire __DIR__ . '/../app/bootstrap.php';\n")
PAGE = ("<!doctype html>\n<title>Back soon</title>\n<h1>We are upgrading the shop</h1>\n"
        "<p>Please come back in an hour.</p>\n")
CSS = "body { font-family: sans-serif; }\n"

flag = P + "/.maintenance"
if os.path.islink(flag) or not os.path.isfile(flag):
    fail(f"{flag} is missing or not a regular file")
elif os.path.getsize(flag) != 0:
    fail(f"{flag} has {os.path.getsize(flag)} bytes, it must be empty (0 bytes)")
expect_text(P + "/index.php", INDEX)
expect_text(P + "/maintenance.html", PAGE)
expect_text(P + "/assets/shop.css", CSS)
extra = sorted(set(os.listdir(P)) - {".maintenance", "index.php", "maintenance.html", "assets"})
if extra:
    fail(f"unexpected new files in {P}: {extra}")
finish()
