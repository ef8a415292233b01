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


want = [{'id': 1, 'title': 'ticket 1', 'state': 'open'}, {'id': 2, 'title': 'ticket 2', 'state': 'open'}, {'id': 3, 'title': 'ticket 3', 'state': 'open'}, {'id': 4, 'title': 'ticket 4', 'state': 'closed'}, {'id': 5, 'title': 'ticket 5', 'state': 'open'}, {'id': 6, 'title': 'ticket 6', 'state': 'closed'}, {'id': 7, 'title': 'ticket 7', 'state': 'closed'}, {'id': 8, 'title': 'ticket 8', 'state': 'open'}, {'id': 9, 'title': 'ticket 9', 'state': 'open'}, {'id': 10, 'title': 'ticket 10', 'state': 'open'}, {'id': 11, 'title': 'ticket 11', 'state': 'closed'}, {'id': 12, 'title': 'ticket 12', 'state': 'closed'}, {'id': 13, 'title': 'ticket 13', 'state': 'closed'}, {'id': 14, 'title': 'ticket 14', 'state': 'open'}, {'id': 15, 'title': 'ticket 15', 'state': 'closed'}, {'id': 16, 'title': 'ticket 16', 'state': 'closed'}, {'id': 17, 'title': 'ticket 17', 'state': 'closed'}, {'id': 18, 'title': 'ticket 18', 'state': 'closed'}, {'id': 19, 'title': 'ticket 19', 'state': 'closed'}, {'id': 20, 'title': 'ticket 20', 'state': 'closed'}, {'id': 21, 'title': 'ticket 21', 'state': 'open'}, {'id': 22, 'title': 'ticket 22', 'state': 'closed'}, {'id': 23, 'title': 'ticket 23', 'state': 'closed'}, {'id': 24, 'title': 'ticket 24', 'state': 'open'}, {'id': 25, 'title': 'ticket 25', 'state': 'closed'}, {'id': 26, 'title': 'ticket 26', 'state': 'closed'}, {'id': 27, 'title': 'ticket 27', 'state': 'closed'}, {'id': 28, 'title': 'ticket 28', 'state': 'closed'}, {'id': 29, 'title': 'ticket 29', 'state': 'closed'}, {'id': 30, 'title': 'ticket 30', 'state': 'open'}, {'id': 31, 'title': 'ticket 31', 'state': 'open'}, {'id': 32, 'title': 'ticket 32', 'state': 'open'}, {'id': 33, 'title': 'ticket 33', 'state': 'closed'}, {'id': 34, 'title': 'ticket 34', 'state': 'closed'}]
got = json_of("/app/export/all_items.json")
if got is not None and got != want:
    ids = [i.get("id") if isinstance(i, dict) else i for i in got] if isinstance(got, list) else got
    fail(f"/app/export/all_items.json: item ids {ids!r}, expected {[i['id'] for i in want]!r}")
finish()
