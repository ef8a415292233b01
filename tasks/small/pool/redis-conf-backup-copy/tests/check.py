import os, sys

FAILS = []


def fail(msg):
    FAILS.append(msg)


def lines_of(path):
    """The file's lines with trailing spaces cut (a missing final newline is tolerated), or None when missing."""
    if not os.path.isfile(path):
        fail(f"{path} is missing")
        return None
    with open(path, encoding="utf-8", errors="replace") as f:
        return [line.rstrip() for line in f.read().splitlines()]


def expect_lines(path, want):
    got = lines_of(path)
    want = [line.rstrip() for line in want]
    if got is not None and got != want:
        fail(f"{path}: got {got[:12]!r}{' ...' if len(got) > 12 else ''}, expected {want[:12]!r}"
             f"{' ...' if len(want) > 12 else ''}")


def expect_bytes(path, want):
    if not os.path.isfile(path):
        fail(f"{path} is missing")
    elif open(path, "rb").read() != want:
        fail(f"{path} does not have the expected content")


def finish():
    for m in FAILS:
        print("FAIL:", m)
    if FAILS:
        sys.exit(1)
    print("all checks passed")


REDIS = b'# Redis configuration for the session cache\nbind 127.0.0.1\nport 6379\nprotected-mode yes\ntimeout 0\ntcp-keepalive 300\ndaemonize no\nloglevel notice\nlogfile /var/log/redis/redis-server.log\ndatabases 4\nsave 900 1\nsave 300 10\nmaxmemory 256mb\nmaxmemory-policy allkeys-lru\nappendonly no\n'
if not os.path.isdir("/app/backup"):
    fail("/app/backup is not a directory")
expect_bytes("/app/backup/redis.conf", REDIS)
expect_bytes("/app/etc/redis.conf", REDIS)
finish()
