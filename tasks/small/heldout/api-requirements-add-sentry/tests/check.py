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


ORIGINAL = 'fastapi==0.111.0\nuvicorn[standard]==0.30.1\npydantic==2.7.4\nsqlalchemy==2.0.31\nhttpx==0.27.0'
REQ = "/app/api/requirements.txt"
got = lines_of(REQ)
want = ORIGINAL.splitlines() + ["sentry-sdk==2.5.1"]
if got is not None:
    if any("sentry" in line and line != "sentry-sdk==2.5.1" for line in got):
        fail(f"{REQ}: sentry-sdk is not on a line of its own: {[l for l in got if 'sentry' in l]!r}")
    expect_lines(REQ, want, got)
expect_text("/app/api/main.py", 'from fastapi import FastAPI\n\napp = FastAPI(title="orders-api")\n\n\n@app.get("/healthz")\ndef healthz():\n    return {"ok": True}\n')
finish()
