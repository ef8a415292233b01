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


inbox = {'inbox/contract-acme.pdf': 1, 'inbox/notes.txt': 0, 'inbox/2024/q1/invoice-0311.pdf': 1, 'inbox/2024/q1/invoice-0311.csv': 0, 'inbox/2024/q2/may/receipt-77.pdf': 1, 'inbox/2024/q2/may/photo.png': 0, 'inbox/scans/id-card.pdf': 1, 'inbox/scans/pdf-settings.txt': 0, 'inbox/scans/old/lease-2019.pdf': 1}
a = "/app/archive/pdf"
have = sorted(os.listdir(a)) if os.path.isdir(a) else []
if have != ['contract-acme.pdf', 'id-card.pdf', 'invoice-0311.pdf', 'lease-2019.pdf', 'receipt-77.pdf']:
    fail(f"{a} holds {have}, expected ['contract-acme.pdf', 'id-card.pdf', 'invoice-0311.pdf', 'lease-2019.pdf', 'receipt-77.pdf']")
for p, k in inbox.items():
    name = p.rsplit("/", 1)[1]
    where = os.path.join(a, name) if k else "/app/" + p
    if not os.path.isfile(where):
        fail(f"{where} is missing")
    elif open(where).read() != ("%PDF-1.4 " if k else "data of ") + p + "\n":
        fail(f"{where} has the wrong content")
    if k and os.path.exists("/app/" + p):
        fail(f"/app/{p} is still in the inbox (moved, not copied)")
finish()
