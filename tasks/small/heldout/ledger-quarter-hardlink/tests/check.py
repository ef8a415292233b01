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


Q1 = b'account,description,amount\n4000,Consulting revenue,18250.00\n4100,Licence revenue,9400.00\n6100,Office rent,-4200.00\n6200,Travel,-1315.40\n'
Q2 = b'account,description,amount\n4000,Consulting revenue,21730.00\n4100,Licence revenue,11200.00\n6100,Office rent,-4200.00\n6200,Travel,-2048.15\n6300,Software subscriptions,-612.90\n'

R = "/app/finance/reports"
CUR, NEW, OLD = R + "/current.csv", R + "/2024-q2.csv", R + "/2024-q1.csv"
expect_bytes(NEW, Q2)
expect_bytes(OLD, Q1)
if os.path.islink(CUR):
    fail(f"{CUR} is a symbolic link; it must be a hard link")
elif not os.path.isfile(CUR):
    fail(f"{CUR} is missing")
elif os.path.isfile(NEW) and not os.path.islink(NEW) and os.stat(CUR).st_ino != os.stat(NEW).st_ino:
    fail(f"{CUR} is a separate file (a copy?), not a hard link to {NEW}")
if os.path.isfile(CUR) and os.path.isfile(OLD) and os.stat(CUR).st_ino == os.stat(OLD).st_ino:
    fail(f"{CUR} is linked to the Q1 report")
finish()
