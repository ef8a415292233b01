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


WORKER1 = b'[2024-06-09 23:01:02,501: INFO/MainProcess] Task shop.tasks.sync_stock received\n[2024-06-09 23:02:02,501: INFO/MainProcess] Task shop.tasks.sync_stock received\n[2024-06-09 23:03:02,501: INFO/MainProcess] Task shop.tasks.sync_stock received\n[2024-06-09 23:04:02,501: INFO/MainProcess] Task shop.tasks.sync_stock received\n[2024-06-09 23:05:02,501: INFO/MainProcess] Task shop.tasks.sync_stock received\n[2024-06-09 23:06:02,501: INFO/MainProcess] Task shop.tasks.sync_stock received\n[2024-06-09 23:07:02,501: INFO/MainProcess] Task shop.tasks.sync_stock received\n[2024-06-09 23:08:02,501: INFO/MainProcess] Task shop.tasks.sync_stock received\n[2024-06-09 23:09:02,501: INFO/MainProcess] Task shop.tasks.sync_stock received\n[2024-06-09 23:10:02,501: INFO/MainProcess] Task shop.tasks.sync_stock received\n[2024-06-09 23:11:02,501: INFO/MainProcess] Task shop.tasks.sync_stock received\n[2024-06-09 23:12:02,501: INFO/MainProcess] Task shop.tasks.sync_stock received\n'
BEAT = b'[2024-06-12 01:00:00,000: INFO/MainProcess] Scheduler: Sending due task nightly-cleanup\n[2024-06-12 02:00:00,000: INFO/MainProcess] Scheduler: Sending due task nightly-cleanup\n[2024-06-12 03:00:00,000: INFO/MainProcess] Scheduler: Sending due task nightly-cleanup\n[2024-06-12 04:00:00,000: INFO/MainProcess] Scheduler: Sending due task nightly-cleanup\n[2024-06-12 05:00:00,000: INFO/MainProcess] Scheduler: Sending due task nightly-cleanup\n'

D = "/app/var/log/celery"
LOG = D + "/worker.log"
data = bytes_of(LOG)
if data is not None:
    if data:
        fail(f"{LOG} is {len(data)} bytes long, expected 0 (empty)")
    if mode_of(LOG) == 0o644:
        fail(f"{LOG} has mode 0644: it was deleted and created anew instead of emptied in place (mode 0640)")
    else:
        expect_mode(LOG, 0o640)
expect_bytes(D + "/worker.log.1", WORKER1)
expect_bytes(D + "/beat.log", BEAT)
finish()
