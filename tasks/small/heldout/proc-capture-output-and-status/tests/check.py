import os, sys

FAILS = []
LOG = "/app/reports/mounts.log"
STATUS = "/app/reports/mounts.status"
# What check_mounts.py prints on stdout and stderr; the order in which the two streams interleave in a
# file depends on buffering, so the lines are compared as a multiset.
WANT = [
    'checking 4 mount points',
    '/           41% used  ok',
    '/var        87% used  ok',
    '/srv/data   96% used  CRITICAL',
    'CRITICAL: /srv/data is 96% full (limit 90%)',
    '/home       12% used  ok',
    'error: 1 mount point(s) above the limit',
    'disk check finished',
]


def fail(msg):
    FAILS.append(msg)


def lines_of(path):
    """The file's non-empty lines without trailing spaces, or None when it is missing."""
    if not os.path.isfile(path):
        fail(f"{path} is missing")
        return None
    with open(path, encoding="utf-8", errors="replace") as f:
        return [line.rstrip() for line in f.read().splitlines() if line.strip()]


def finish():
    for m in FAILS:
        print("FAIL:", m)
    if FAILS:
        sys.exit(1)
    print("all checks passed")


log = lines_of(LOG)
if log is not None and sorted(log) != sorted(WANT):
    missing = [line for line in WANT if line not in log]
    extra = [line for line in log if line not in WANT]
    fail(f"{LOG} is not the complete output of the check; missing {missing!r}, unexpected {extra[:5]!r}")

status = lines_of(STATUS)
if status is not None and [s.strip() for s in status] != ["3"]:
    fail(f"{STATUS}: expected the exit status of the check, got {status[:3]!r}")
finish()
