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


NIGHTLY = b'#!/bin/bash\n# nightly sales report, mailed to sales@example.com\nset -e\npython3 /app/reports/sales.py --yesterday > /app/reports/out/sales.txt\n'
CLEANUP = b'#!/bin/bash\n# disabled until the new tmp layout is live\nfind /app/tmp -mtime +7 -delete\n'
BACKUPDB = b'#!/bin/bash\nsqlite3 /app/data/shop.db .dump | gzip > /app/backups/shop.sql.gz\n'

J = "/app/jobs"
expect_bytes(J + "/nightly-report.sh", NIGHTLY)
expect_mode(J + "/nightly-report.sh", 0o755)
expect_absent(J + "/nightly-report.sh.disabled")
expect_bytes(J + "/cleanup-tmp.sh.disabled", CLEANUP)
expect_mode(J + "/cleanup-tmp.sh.disabled", 0o755)
expect_absent(J + "/cleanup-tmp.sh")
expect_bytes(J + "/backup-db.sh", BACKUPDB)
expect_mode(J + "/backup-db.sh", 0o755)
finish()
