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


MMDB_SHA256 = 'd8ce13ca324cc9fca8376c2ff68755adf2e9e0374cf6ef1bf7fc43a07ddec828'
CONF = b'geoip_database: data/GeoLite2-City.mmdb\nsessions_retention_days: 90\nanonymize_ip: true\n'
README = b'GeoLite2 City database, refreshed every Tuesday by the geoipupdate timer.\n'
MASTER = "/app/srv/geoip/GeoLite2-City.mmdb"
COPY = "/app/srv/analytics/data/GeoLite2-City.mmdb"
expect_sha256(MASTER, MMDB_SHA256)
expect_sha256(COPY, MMDB_SHA256)
expect_mode(MASTER, 0o644)
if os.path.isfile(MASTER) and os.path.isfile(COPY) and not os.path.islink(MASTER) and not os.path.islink(COPY):
    if os.stat(MASTER).st_ino != os.stat(COPY).st_ino:
        fail(f"{COPY} is still a separate file (different inode), not a hard link to {MASTER}")
expect_entries("/app/srv/geoip", ["GeoLite2-City.mmdb", "README.txt"])
expect_entries("/app/srv/analytics/data", ["GeoLite2-City.mmdb"])
expect_bytes("/app/srv/geoip/README.txt", README)
expect_bytes("/app/srv/analytics/analytics.yml", CONF)
finish()
