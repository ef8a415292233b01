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


CRT = b'-----BEGIN CERTIFICATE-----\nMIIBszCCAVmgAwIBAgIUSHOPTESTCERT2024AAAAAAAAAAAwCgYIKoZIzj0EAwIw\nFzEVMBMGA1UEAwwMc2hvcC5leGFtcGxlMB4XDTI0MDExNTAwMDAwMFoXDTI1MDEx\n-----END CERTIFICATE-----\n'
OLDCRT = b'-----BEGIN CERTIFICATE-----\nMIIBszCCAVmgAwIBAgIUSHOPTESTCERT2023BBBBBBBBBBBwCgYIKoZIzj0EAwIw\n-----END CERTIFICATE-----\n'

SRC, DST = "/app/certs/shop.crt", "/app/certs/archive/shop-2024.crt"
JAN15 = 1705311000  # 2024-01-15 09:30 UTC
expect_bytes(SRC, CRT)
expect_bytes(DST, CRT)
expect_bytes("/app/certs/archive/shop-2023.crt", OLDCRT)
if os.path.isfile(SRC):
    src_mtime = int(os.stat(SRC).st_mtime)
    if abs(src_mtime - JAN15) > 86400:
        fail(f"{SRC}: its modification time changed")
    if os.path.isfile(DST) and not os.path.islink(DST) and int(os.stat(DST).st_mtime) != src_mtime:
        fail(f"{DST}: modification time differs from the original's (copied without keeping it)")
finish()
