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


want = {"/app/" + k: v for k, v in {'config/app.ini': '[server]\nbind = 0.0.0.0\nport = 8000\n\n[database]\nhost = db-new.internal\nport = 5432\nname = billing\n', 'config/worker.ini': '[queue]\nbroker = redis://cache.internal:6379/0\n\n[database]\nurl = postgres://billing@db-new.internal:5432/billing?fallback=db-new.internal\npool_size = 5\n', 'config/reports/reporting.ini': '; nightly reports\n[source]\ndsn = host=db-new.internal dbname=billing user=reports\nreadonly = true\n', 'config/cache.ini': '[redis]\nhost = cache.internal\nttl = 300\n', 'config/app.ini.orig': '[database]\nhost = db-old.internal\nport = 5432\n', 'config/README.md': 'Config for the billing service. The database moved from db-old.internal to a new host\nin June; see the ticket for details.\n'}.items()}
for path, text in sorted(want.items()):
    if not os.path.isfile(path):
        fail(f"{path} is missing")
        continue
    got = open(path, encoding="utf-8").read()
    if got != text:
        fail(f"{path} does not have the expected content (db-old.internal left, or other changes)")
finish()
