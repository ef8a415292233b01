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


want = ['88 ledger/api/views.py', '59 ledger/util/money.py', '47 ledger/models.py', '35 ledger/api/serializers.py', '22 ledger/util/dates.py', '12 manage.py', '3 ledger/__init__.py', '1 ledger/api/__init__.py']
got = lines_of("/app/loc.txt")
if got is not None:
    norm = [" ".join(l.split()) for l in got if l.strip()]
    norm = [l[:l.index(" ") + 1] + l[l.index(" ") + 1:].removeprefix("./") if " " in l else l for l in norm]
    if norm != want:
        fail(f"/app/loc.txt: got {norm!r}, expected {want!r}")
finish()
