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


expect_lines("/app/etc/motd", ['Welcome to build-03 (Debian 12)', 'Owner: platform team, #platform-help on chat', 'Builds older than 14 days are deleted from /srv/artifacts.', 'Please do not run long jobs in your home directory.', 'Scheduled maintenance: Sunday 02:00-04:00 UTC'])
finish()
