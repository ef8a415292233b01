import json, os, stat, sys

FAILS = []


def fail(msg):
    FAILS.append(msg)


def lines_of(path):
    """The file's lines (a missing final newline is tolerated), or None when it is missing."""
    if not os.path.isfile(path):
        fail(f"{path} is missing")
        return None
    with open(path, encoding="utf-8", errors="replace") as f:
        return f.read().splitlines()


def json_of(path):
    if not os.path.isfile(path):
        fail(f"{path} is missing")
        return None
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except ValueError as exc:
        fail(f"{path} is not valid JSON: {exc}")
        return None


def mode_of(path):
    return stat.S_IMODE(os.lstat(path).st_mode)


def expect_mode(path, want):
    if not os.path.lexists(path):
        fail(f"{path} is missing")
    elif os.path.islink(path):
        fail(f"{path} became a symlink")
    elif mode_of(path) != want:
        fail(f"{path}: mode {mode_of(path):04o}, expected {want:04o}")


def expect_lines(path, want):
    got = lines_of(path)
    if got is not None and got != want:
        fail(f"{path}: got {got[:12]!r}{' ...' if len(got) > 12 else ''}, expected {want[:12]!r}"
             f"{' ...' if len(want) > 12 else ''}")


def finish():
    for m in FAILS:
        print("FAIL:", m)
    if FAILS:
        sys.exit(1)
    print("all checks passed")


epochs = {'inv-10233.xml': 1694678400, 'inv-10240.xml': 1698946200, 'inv-10301.xml': 1703073600, 'inv-10388.xml': 1704791700, 'inv-10412.xml': 1709045100, 'inv-10415.xml': 1709445600, 'credit-77.xml': 1698660600, 'credit-81.xml': 1706785860}
out, st = "/app/spool/outgoing", "/app/spool/stale"
have_out = set(os.listdir(out)) if os.path.isdir(out) else set()
have_st = set(os.listdir(st)) if os.path.isdir(st) else set()
if have_st != set(['credit-77.xml', 'inv-10233.xml', 'inv-10240.xml', 'inv-10301.xml']):
    fail(f"{st} holds {sorted(have_st)}, expected ['credit-77.xml', 'inv-10233.xml', 'inv-10240.xml', 'inv-10301.xml']")
if have_out != set(['credit-81.xml', 'inv-10388.xml', 'inv-10412.xml', 'inv-10415.xml']):
    fail(f"{out} holds {sorted(have_out)}, expected ['credit-81.xml', 'inv-10388.xml', 'inv-10412.xml', 'inv-10415.xml']")
for d, names in ((st, have_st), (out, have_out)):
    for n in names & set(epochs):
        p = os.path.join(d, n)
        if abs(os.stat(p).st_mtime - epochs[n]) > 2 * 86400:
            fail(f"{p}: modification time changed")
        if open(p).read() != '<invoice id="' + n + '"/>\n':
            fail(f"{p}: content changed")
finish()
