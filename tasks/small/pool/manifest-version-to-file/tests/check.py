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


MANIFEST = '{\n  "name": "billing-service",\n  "version": "3.7.2",\n  "schema_version": 4,\n  "owner": "payments-team",\n  "entrypoint": "billing.main:app",\n  "dependencies": {\n    "ledger-client": "1.2.0",\n    "http-kit": "0.9.5"\n  }\n}\n'
got = text_of("/app/billing/VERSION")
if got is not None and got.strip() != "3.7.2":
    fail(f"/app/billing/VERSION holds {got.strip()[:80]!r}, expected 3.7.2")
text = text_of("/app/billing/manifest.json")
try:
    if text is not None and json.loads(text) != json.loads(MANIFEST):
        fail("manifest.json was changed")
except ValueError:
    fail("manifest.json is no longer valid JSON")
finish()
