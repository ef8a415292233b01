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


ORIGINAL = '[metadata]\nname = ledgerly\nversion = 0.9.3\ndescription = Small double-entry bookkeeping helpers\nlicense = MIT\n\n[options]\npackages = find:\npython_requires = >=3.10\ninstall_requires =\n    python-dateutil>=2.8\n\n[flake8]\nmax-line-length = 79\nexclude = .git,__pycache__,build,dist\nper-file-ignores =\n    ledgerly/__init__.py:F401\n\n[pycodestyle]\nmax_line_length = 79\nstatistics = True\n\n[isort]\nprofile = black\nline_length = 79\n\n[tool:pytest]\ntestpaths = tests\naddopts = -q\n'
WANT = ORIGINAL.replace("\nmax-line-length = 79\n", "\nmax-line-length = 120\n", 1)
assert WANT != ORIGINAL
CFG = "/app/ledgerly/setup.cfg"
got = lines_of(CFG)
if got is not None:
    if "max_line_length = 79" not in got or "line_length = 79" not in got:
        fail(f"{CFG}: pycodestyle's max_line_length or isort's line_length was changed; both must stay 79")
    if got.count("max-line-length = 120") != 1:
        fail(f"{CFG}: the [flake8] section must have exactly one line 'max-line-length = 120'")
expect_lines(CFG, WANT.splitlines(), got)
finish()
