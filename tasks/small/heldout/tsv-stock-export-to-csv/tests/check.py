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

import csv

TSV = ("sku\tname\tcolor\tqty\twarehouse\nA-101\tBlue mug\tblue\t24\tOslo\nA-102\tTea towel\t\t8\tOslo\n"
       "A-117\tSteel bottle\tsilver\t0\tBergen\nB-204\tWool scarf\tgrey\t13\t\nB-205\tRain jacket\tyellow\t5\tBergen\n"
       "C-310\tDesk lamp\t\t2\tTrondheim\nC-311\tNotebook A5\tred\t140\tOslo\nC-312\tPencil case\tgreen\t37\tTrondheim\n")
WANT = [line.split("\t") for line in TSV.splitlines()]

lines = lines_of("/app/exports/stock.csv")
if lines is not None:
    rows = list(csv.reader([line for line in lines if line]))
    if rows != WANT:
        short = [",".join(r) for r in rows if len(r) != 5]
        if any("\t" in line for line in lines):
            fail("stock.csv still contains tabs: every tab must become a comma")
        elif short:
            fail(f"stock.csv: these rows no longer have five columns (an empty field was lost?): {short[:5]!r}")
        else:
            fail(f"stock.csv holds {[','.join(r) for r in rows][:12]!r}, expected {[','.join(r) for r in WANT]!r}")
expect_text("/app/exports/stock.tsv", TSV)
finish()
