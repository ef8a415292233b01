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

SCRIPT = r'''#!/bin/bash
# Prints the order count and revenue of one region (REPORT_REGION), or of all regions when it is unset.
region="${REPORT_REGION:-all}"
echo "Sales report, region: $region"
awk -F, -v r="$region" 'NR > 1 && (r == "all" || $2 == r) { n++; s += $3 }
  END { printf "orders: %d\nrevenue: %.2f\n", n, s }' /app/tools/sales.csv
'''
DATA = ("order_id,region,amount\n1001,emea,120.50\n1002,apac,99.90\n1003,emea,15.00\n1004,amer,310.00\n"
        "1005,emea,42.25\n1006,apac,7.50\n1007,amer,64.00\n1008,emea,200.00\n")
WANT = ["Sales report, region: emea", "orders: 4", "revenue: 377.75"]

lines = lines_of("/app/reports/emea.txt")
if lines is not None:
    got = [line for line in lines if line]
    if got and got[0] == "Sales report, region: all":
        fail("emea.txt is the report of all regions: REPORT_REGION did not reach the script")
    elif got != WANT:
        fail(f"emea.txt holds {got[:6]!r}, expected the script's output for emea: {WANT!r}")
expect_text("/app/tools/sales_report.sh", SCRIPT)
expect_text("/app/tools/sales.csv", DATA)
finish()
