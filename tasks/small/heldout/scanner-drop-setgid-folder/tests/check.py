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


INV11 = b'INVOICE 2024-0611\nVendor: Nordwind Office Supply\nTotal: 412.80 EUR\n(scanned on MFP-2, page 1 of 1)\n'
INV12 = b'INVOICE 2024-0612\nVendor: Kessler Facility Services\nTotal: 1,980.00 EUR\n(scanned on MFP-2, page 1 of 2)\n'
D = "/app/srv/scans/accounting"
if os.path.isdir(D) and not os.path.islink(D) and mode_of(D) == 0o770:
    fail(f"{D} is 0770: the set-group-ID bit is missing (mode 2770)")
else:
    expect_mode(D, 0o2770)
expect_mode("/app/srv/scans", 0o755)
expect_entries(D, ["invoice-2024-0611.pdf", "invoice-2024-0612.pdf"])
expect_bytes(D + "/invoice-2024-0611.pdf", INV11)
expect_bytes(D + "/invoice-2024-0612.pdf", INV12)
expect_mode(D + "/invoice-2024-0611.pdf", 0o640)
expect_mode(D + "/invoice-2024-0612.pdf", 0o644)
finish()
