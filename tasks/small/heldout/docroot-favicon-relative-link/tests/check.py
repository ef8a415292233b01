import hashlib, os, stat, sys

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


def expect_sha256(path, want):
    got = bytes_of(path)
    if got is not None and hashlib.sha256(got).hexdigest() != want:
        fail(f"{path} does not have the expected content")


def expect_absent(path):
    if os.path.lexists(path):
        fail(f"{path} should not exist")


def mode_of(path):
    return stat.S_IMODE(os.lstat(path).st_mode)


def expect_mode(path, want):
    if not os.path.lexists(path):
        fail(f"{path} is missing")
    elif os.path.islink(path):
        fail(f"{path} became a symlink")
    elif mode_of(path) != want:
        fail(f"{path}: mode {mode_of(path):04o}, expected {want:04o}")


def expect_entries(directory, names):
    if not os.path.isdir(directory) or os.path.islink(directory):
        fail(f"{directory} is missing or not a directory")
        return
    have = set(os.listdir(directory))
    missing, extra = sorted(set(names) - have), sorted(have - set(names))
    if missing or extra:
        fail(f"{directory}: missing {missing}, unexpected {extra}")


def finish():
    for m in FAILS:
        print("FAIL:", m)
    if FAILS:
        sys.exit(1)
    print("all checks passed")


ICO_SHA256 = '712c5e14c8a9e71039f54c41a25d0ded75ffd56fe3a8605f49ad126d1d8a2a77'
LOGO = b'<svg xmlns="http://www.w3.org/2000/svg" width="120" height="32"><text x="0" y="24">Hartwell &amp; Co</text></svg>\n'
INDEX = b'<!doctype html>\n<html><head><title>Hartwell &amp; Co</title><link rel="icon" href="/favicon.ico"></head>\n<body><h1>Hartwell &amp; Co</h1></body></html>\n'
ROBOTS = b'User-agent: *\nAllow: /\n'
L = "/app/www/html/favicon.ico"
if not os.path.islink(L):
    fail(f"{L} is not a symbolic link" + (" (a copy?)" if os.path.exists(L) else ""))
else:
    target = os.readlink(L)
    if target != "../brand/favicon.ico":
        fail(f"{L} -> {target!r}, expected the relative target '../brand/favicon.ico'")
    elif os.path.realpath(L) != "/app/www/brand/favicon.ico":
        fail(f"{L} does not resolve to /app/www/brand/favicon.ico")
expect_sha256("/app/www/brand/favicon.ico", ICO_SHA256)
expect_bytes("/app/www/brand/logo.svg", LOGO)
expect_entries("/app/www/brand", ["favicon.ico", "logo.svg"])
expect_bytes("/app/www/html/index.html", INDEX)
expect_bytes("/app/www/html/robots.txt", ROBOTS)
expect_entries("/app/www/html", ["favicon.ico", "index.html", "robots.txt"])
finish()
