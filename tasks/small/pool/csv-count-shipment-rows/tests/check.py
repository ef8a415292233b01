import json, os, stat, subprocess, sys

FAILS = []


def fail(msg):
    FAILS.append(msg)


def text_of(path):
    """The file's text, or None (and a failure) when it is missing."""
    if os.path.islink(path) or not os.path.isfile(path):
        fail(f"{path} is missing or not a regular file")
        return None
    with open(path, encoding="utf-8", errors="replace") as f:
        return f.read()


def lines_of(path):
    """The file's lines without trailing spaces (a missing final newline is tolerated), or None."""
    text = text_of(path)
    return None if text is None else [line.rstrip() for line in text.splitlines()]


def mode_of(path):
    return stat.S_IMODE(os.lstat(path).st_mode)


def expect_mode(path, want):
    if not os.path.lexists(path):
        fail(f"{path} is missing")
    elif os.path.islink(path):
        fail(f"{path} became a symlink")
    elif mode_of(path) != want:
        fail(f"{path}: mode {mode_of(path):04o}, expected {want:04o}")


def expect_text(path, want):
    got = text_of(path)
    if got is not None and got != want:
        fail(f"{path} was changed")


def finish():
    for m in FAILS:
        print("FAIL:", m)
    if FAILS:
        sys.exit(1)
    print("all checks passed")


CSV = 'shipment_id,destination,carrier,weight_kg,shipped_on\nSH-1001,Lyon,DHL,12.5,2024-06-03\nSH-1002,Porto,UPS,3.2,2024-06-03\nSH-1003,Gdansk,DPD,27.0,2024-06-04\nSH-1004,Lyon,DHL,8.8,2024-06-04\nSH-1005,Turin,GLS,15.1,2024-06-05\nSH-1006,Ghent,DPD,4.4,2024-06-05\nSH-1007,Porto,UPS,19.9,2024-06-06\nSH-1008,Brno,GLS,6.0,2024-06-06\nSH-1009,Lyon,DHL,2.7,2024-06-07\nSH-1010,Tartu,DPD,11.3,2024-06-07\nSH-1011,Ghent,UPS,9.6,2024-06-10\nSH-1012,Turin,GLS,22.4,2024-06-10\nSH-1013,Brno,DHL,5.5,2024-06-11\n'
got = text_of("/app/data/shipment_count.txt")
if got is not None and got.strip() != "13":
    fail(f"/app/data/shipment_count.txt holds {got.strip()[:80]!r}, expected 13")
expect_text("/app/data/shipments.csv", CSV)
finish()
