import os, stat, sys

FAILS = []


def fail(msg):
    FAILS.append(msg)


def bytes_of(path):
    """The file's bytes, or None (and a failure) when it is missing or not a regular file."""
    if os.path.islink(path) or not os.path.isfile(path):
        fail(f"{path} is missing or not a regular file")
        return None
    with open(path, "rb") as f:
        return f.read()


def expect_bytes(path, want):
    got = bytes_of(path)
    if got is not None and got != want:
        fail(f"{path} does not have the expected content")


def expect_absent(path):
    if os.path.lexists(path):
        fail(f"{path} should not exist any more")


def mode_of(path):
    return stat.S_IMODE(os.lstat(path).st_mode)


def expect_mode(path, want):
    if not os.path.lexists(path):
        fail(f"{path} is missing")
    elif os.path.islink(path):
        fail(f"{path} became a symlink")
    elif mode_of(path) != want:
        fail(f"{path}: mode {mode_of(path):04o}, expected {want:04o}")


def finish():
    for m in FAILS:
        print("FAIL:", m)
    if FAILS:
        sys.exit(1)
    print("all checks passed")


INDEX = b'<!doctype html>\n<html><head><title>Field notes</title></head>\n<body><h1>Field notes</h1><p>Latest posts below.</p></body></html>\n'
FEED = b'<?xml version="1.0" encoding="utf-8"?>\n<rss version="2.0"><channel><title>Field notes</title></channel></rss>\n'

P = "/app/blog/public"
data = bytes_of(P + "/robots.txt")
if data is not None:
    got = [line.rstrip() for line in data.decode("utf-8", "replace").splitlines()]
    while got and not got[-1]:
        got.pop()
    want = ["User-agent: *", "Disallow: /admin/"]
    if got != want:
        fail(f"{P}/robots.txt holds {got[:6]!r}, expected {want!r}")
expect_bytes(P + "/index.html", INDEX)
expect_bytes(P + "/feed.xml", FEED)
finish()
