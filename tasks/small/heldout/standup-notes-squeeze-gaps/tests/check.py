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

ORIGINAL = ("Standup 2024-06-10\nAttendees: Ana, Bo, Chen, Dita\n\n\n\nDone yesterday\n"
            "- Ana: fixed the invoice PDF export\n- Bo: reviewed the search PR\n\n\nDoing today\n"
            "- Chen: migrate the cron jobs\n- Dita: on-call handover\n- Bo: release notes for 3.2\n\n\n\n\n"
            "Blockers\n- staging database is read-only since Friday\n\nNext standup\nTuesday 09:30, room Fjord\n")
WANT = ["Standup 2024-06-10", "Attendees: Ana, Bo, Chen, Dita", "",
        "Done yesterday", "- Ana: fixed the invoice PDF export", "- Bo: reviewed the search PR", "",
        "Doing today", "- Chen: migrate the cron jobs", "- Dita: on-call handover", "- Bo: release notes for 3.2", "",
        "Blockers", "- staging database is read-only since Friday", "",
        "Next standup", "Tuesday 09:30, room Fjord"]

lines = lines_of("/app/notes/standup-tidy.txt")
if lines is not None:
    while lines and not lines[-1]:
        lines.pop()  # empty lines at the very end are tolerated
    if lines != WANT:
        if [line for line in lines if line] == [line for line in WANT if line] and "" not in lines:
            fail("standup-tidy.txt has no empty lines left: each gap must become exactly one empty line")
        else:
            fail(f"standup-tidy.txt holds {lines[:30]!r}, expected {WANT!r}")
expect_text("/app/notes/standup.txt", ORIGINAL)
finish()
