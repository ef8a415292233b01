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


PART10 = b'order_id,sku,qty\n9101,TEA-01,3\n9102,MUG-07,1\n'
PART11 = b'order_id,sku,qty\n9150,TEA-02,2\n'

E = "/app/warehouse/exports"
if not os.path.isdir(E + "/2024-06-12") or os.path.islink(E + "/2024-06-12"):
    fail(f"{E}/2024-06-12 is not a directory")
expect_bytes(E + "/2024-06-12/_SUCCESS", b"")
for day, part in (("2024-06-10", PART10), ("2024-06-11", PART11)):
    expect_bytes(f"{E}/{day}/part-0000.csv", part)
    expect_bytes(f"{E}/{day}/_SUCCESS", b"")
finish()
