import os, sys

FAILS = []


def fail(msg):
    FAILS.append(msg)


def lines_of(path):
    """The file's lines with trailing spaces cut (a missing final newline is tolerated), or None when missing."""
    if not os.path.isfile(path):
        fail(f"{path} is missing")
        return None
    with open(path, encoding="utf-8", errors="replace") as f:
        return [line.rstrip() for line in f.read().splitlines()]


def expect_lines(path, want):
    got = lines_of(path)
    want = [line.rstrip() for line in want]
    if got is not None and got != want:
        fail(f"{path}: got {got[:12]!r}{' ...' if len(got) > 12 else ''}, expected {want[:12]!r}"
             f"{' ...' if len(want) > 12 else ''}")


def expect_bytes(path, want):
    if not os.path.isfile(path):
        fail(f"{path} is missing")
    elif open(path, "rb").read() != want:
        fail(f"{path} does not have the expected content")


def finish():
    for m in FAILS:
        print("FAIL:", m)
    if FAILS:
        sys.exit(1)
    print("all checks passed")


expect_lines("/app/etc/apt/sources.list", ['# Package sources for the build agents', '# Mirror status page: http://mirror.example.net/status (maintained by mirror.example.net ops)', 'deb http://mirror.example.net/debian bookworm main contrib', 'deb http://mirror.example.net/debian bookworm-updates main contrib', 'deb-src http://mirror.example.net/debian bookworm main', 'deb http://security.example.org/debian-security bookworm-security main', '# internal tools', 'deb [trusted=yes] http://apt.tools.example.net/ stable main', 'deb http://mirror.example.net/debian bookworm-backports main'])
finish()
