import os, stat, sys

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


def expect_lines(path, want, got=...):
    got = lines_of(path) if got is ... else got
    want = [line.rstrip() for line in want]
    if got is not None and got != want:
        fail(f"{path}: got {got[:12]!r}{' ...' if len(got) > 12 else ''}, expected {want[:12]!r}"
             f"{' ...' if len(want) > 12 else ''}")


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


ORIGINAL = 'OL\nOL\nOL\nOL\nOL\nOL\nOL\nOL\nOL\nOL\nOL\nOL\nOL\nOL\nOB\nOB\nOB\nOB\nOL CHRG\nOL CHRG\nOL CHRG\nOL\nOL\nOL\nOL\nOL\nOL\nOL\nOL\nOL\nOB\nOB\nOB\nOB\nOB\nOB\nOB LB\nOB LB\nOL CHRG\nOL CHRG\nOL CHRG\nOL CHRG\nOL CHRG\nOL\nOL\nOL\nOL\nOL\nOL\nOL\nOL\nOL\nOL\nOL\n'
WANT = ['OL', 'OB', 'OL CHRG', 'OL', 'OB', 'OB LB', 'OL CHRG', 'OL']
OUT = "/app/ups/transitions.txt"
got = lines_of(OUT)
if got is not None and got != WANT and sorted(set(got)) == sorted(set(WANT)) and len(got) < len(WANT):
    fail(f"{OUT}: states that come back later were dropped; only consecutive repeats collapse")
expect_lines(OUT, WANT, got)
expect_text("/app/ups/status.log", ORIGINAL)
finish()
