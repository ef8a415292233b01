import hashlib, os, stat, sys

FAILS = []


def fail(msg):
    FAILS.append(msg)


def bytes_of(path):
    """The file's bytes, or None (and a failure) when it is missing or not a regular file."""
    if os.path.islink(path) or not os.path.isfile(path):
        fail(f"{path} is missing or not a regular file")
        return None
    with open(path, "rb") as f:
        return f.read()


def expect_bytes(path, want):
    got = bytes_of(path)
    if got is not None and got != want:
        fail(f"{path} does not have the expected content")


def expect_sha256(path, want):
    got = bytes_of(path)
    if got is not None and hashlib.sha256(got).hexdigest() != want:
        fail(f"{path} does not have the expected content")


def expect_absent(path):
    if os.path.lexists(path):
        fail(f"{path} should not exist")


def mode_of(path):
    return stat.S_IMODE(os.lstat(path).st_mode)


def expect_mode(path, want):
    if not os.path.lexists(path):
        fail(f"{path} is missing")
    elif os.path.islink(path):
        fail(f"{path} became a symlink")
    elif mode_of(path) != want:
        fail(f"{path}: mode {mode_of(path):04o}, expected {want:04o}")


def expect_entries(directory, names):
    if not os.path.isdir(directory) or os.path.islink(directory):
        fail(f"{directory} is missing or not a directory")
        return
    have = set(os.listdir(directory))
    missing, extra = sorted(set(names) - have), sorted(have - set(names))
    if missing or extra:
        fail(f"{directory}: missing {missing}, unexpected {extra}")


def finish():
    for m in FAILS:
        print("FAIL:", m)
    if FAILS:
        sys.exit(1)
    print("all checks passed")


FILES = {
    '2023/acme-msa.pdf': (b'Master services agreement, ACME Corp, signed 2023-02-14\n', 0o640),
    '2023/globex-nda.pdf': (b'Mutual NDA, Globex Ltd, signed 2023-07-03\n', 0o660),
    '2024/initech-sow.pdf': (b'Statement of work 3, Initech, signed 2024-01-22\n', 0o640),
    '2024/umbrella-dpa.pdf': (b'Data processing addendum, Umbrella plc, signed 2024-04-09\n', 0o640),
    'index.csv': (b'file,counterparty,signed\n2023/acme-msa.pdf,ACME Corp,2023-02-14\n2023/globex-nda.pdf,Globex Ltd,2023-07-03\n2024/initech-sow.pdf,Initech,2024-01-22\n2024/umbrella-dpa.pdf,Umbrella plc,2024-04-09\n', 0o660),
    'redact.sh': (b'#!/bin/sh\n# blank out bank details before a contract leaves legal\nsed -E \'s/IBAN [A-Z0-9 ]+/IBAN [redacted]/g\' "$1"\n', 0o750),
}
DIRS = {'': 0o750, '2023': 0o750, '2024': 0o770}
TEMPLATE = b'Mutual NDA template v4 - fill in the parties and the effective date.\n'
R = "/app/legal/contracts"
for rel, want in DIRS.items():
    path = os.path.join(R, rel) if rel else R
    if not os.path.isdir(path) or os.path.islink(path):
        fail(f"{path} is not a directory")
    else:
        expect_mode(path, want)
for rel, (data, want) in FILES.items():
    path = os.path.join(R, rel)
    expect_bytes(path, data)
    if os.path.isfile(path) and not os.path.islink(path):
        expect_mode(path, want)
expect_entries(R, ["2023", "2024", "index.csv", "redact.sh"])
expect_entries(R + "/2023", ["acme-msa.pdf", "globex-nda.pdf"])
expect_entries(R + "/2024", ["initech-sow.pdf", "umbrella-dpa.pdf"])
expect_bytes("/app/legal/templates/nda-template.docx", TEMPLATE)
expect_mode("/app/legal/templates/nda-template.docx", 0o644)
expect_mode("/app/legal/templates", 0o755)
expect_mode("/app/legal", 0o755)
finish()
