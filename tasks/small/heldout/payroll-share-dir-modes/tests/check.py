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


def expect_lines(path, want):
    got = lines_of(path)
    want = [line.rstrip() for line in want]
    if got is not None and got != want:
        fail(f"{path}: got {got[:12]!r}{' ...' if len(got) > 12 else ''}, expected {want[:12]!r}"
             f"{' ...' if len(want) > 12 else ''}")


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


def expect_no_extra(directory, names):
    extra = sorted(set(os.listdir(directory)) - set(names)) if os.path.isdir(directory) else []
    if extra:
        fail(f"unexpected new files in {directory}: {extra}")


def finish():
    for m in FAILS:
        print("FAIL:", m)
    if FAILS:
        sys.exit(1)
    print("all checks passed")


D = "/app/finance/payroll/"
ORIGINAL = {'2024-05-payroll.csv': 'employee,gross\nE-1001,4210.00\nE-1002,3980.50\n', '2024-06-payroll.csv': 'employee,gross\nE-1001,4210.00\nE-1002,4015.25\n', 'salary-bands.txt': 'band A: 3200-3900\nband B: 3900-4700\nband C: 4700-5600\n', 'README.txt': 'Monthly payroll exports. Owner: HR (payroll team).\n'}
expect_mode("/app/finance/payroll", 0o750)
expect_mode("/app/finance", 0o755)
for name, text in ORIGINAL.items():
    if os.path.isfile(D + name) and mode_of(D + name) & 0o111:
        fail(f"{D + name} got an execute bit")
    expect_mode(D + name, 0o640)
    expect_text(D + name, text)
expect_no_extra(D, list(ORIGINAL))
finish()
