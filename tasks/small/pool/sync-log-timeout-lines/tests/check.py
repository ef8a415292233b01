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


expect_lines("/app/logs/timeouts.log", ['2024-06-12 01:00:31 upload photos/team.jpg failed: timeout after 20s', '2024-06-12 01:01:40 upload backups/db.sql.gz failed: timeout after 20s', '2024-06-12 01:02:25 upload backups/db.sql.gz failed: read timeout from storage node 3', '2024-06-12 01:04:51 connection to storage node 2 dropped (timeout), reconnecting', '2024-06-12 01:06:40 upload media/outro.mp4 failed: timeout after 20s'])
expect_lines("/app/logs/sync.log", ['2024-06-12 01:00:01 sync started: 412 files queued', '2024-06-12 01:00:09 upload invoices/2024-06.pdf ok', '2024-06-12 01:00:31 upload photos/team.jpg failed: timeout after 20s', '2024-06-12 01:00:32 retry 1 for photos/team.jpg', '2024-06-12 01:00:58 upload photos/team.jpg ok', '2024-06-12 01:01:14 Timeout setting is 20s (config default)', '2024-06-12 01:01:40 upload backups/db.sql.gz failed: timeout after 20s', '2024-06-12 01:02:02 retry 1 for backups/db.sql.gz', '2024-06-12 01:02:25 upload backups/db.sql.gz failed: read timeout from storage node 3', '2024-06-12 01:02:26 giving up on backups/db.sql.gz', '2024-06-12 01:03:10 upload docs/handbook.odt ok', '2024-06-12 01:03:44 WARNING: node 3 reports TIMEOUT on health probe', '2024-06-12 01:04:05 upload docs/roadmap.md ok', '2024-06-12 01:04:51 connection to storage node 2 dropped (timeout), reconnecting', '2024-06-12 01:05:00 reconnected to storage node 2', '2024-06-12 01:05:37 upload media/intro.mp4 ok', '2024-06-12 01:06:12 Timeout count for this run exceeds the alert limit', '2024-06-12 01:06:40 upload media/outro.mp4 failed: timeout after 20s', '2024-06-12 01:07:02 sync finished: 407 ok, 5 failed'])
finish()
