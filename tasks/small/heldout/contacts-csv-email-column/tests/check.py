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

CSV = ("id,name,email,city\n1,Ana Lopez,ana.lopez@fjordmail.example,Oslo\n2,Bo Nilsen,bo@nilsen.example,Bergen\n"
       "3,Chen Wei,chen.wei@example.org,Trondheim\n4,Dita Berg,dita.berg@fjordmail.example,Oslo\n"
       "5,Emil Haug,emil@haug.example,Stavanger\n6,Fatima Noor,f.noor@example.org,Bergen\n"
       "7,Gustav Lie,gustav.lie@fjordmail.example,Tromso\n8,Hanna Moe,hanna.moe@example.net,Oslo\n"
       "9,Ivar Dahl,ivar@dahl.example,Bodo\n10,Julie Aas,julie.aas@example.net,Oslo\n")
WANT = [line.split(",")[2] for line in CSV.splitlines()[1:]]

lines = lines_of("/app/crm/emails.txt")
if lines is not None:
    got = [line.strip() for line in lines if line.strip()]
    if got != WANT:
        if got[:1] == ["email"]:
            fail("emails.txt starts with the header's column name 'email'; only the addresses belong in it")
        else:
            fail(f"emails.txt holds {got[:12]!r}, expected {WANT!r}")
expect_text("/app/crm/contacts.csv", CSV)
finish()
