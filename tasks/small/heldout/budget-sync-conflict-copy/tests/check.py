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


KEEP = {
    'forecast 2024.xlsx': b'forecast 2024 (workbook stand-in)\nQ1,Q2,Q3,Q4\n118400,121950,119300,140200\n',
    'forecast 2024 (final).xlsx': b'forecast 2024 FINAL (workbook stand-in)\nQ1,Q2,Q3,Q4\n118400,121950,119300,140200\n',
    'actuals 2023.xlsx': b'actuals 2023 (workbook stand-in)\nQ1,Q2,Q3,Q4\n109120,115400,112870,133050\n',
    'notes.txt': b'Forecast owner: Priya. The (final) version is the one sent to the board.\n',
}
D = "/app/share/budget"
expect_absent(D + "/forecast 2024 (conflicted copy).xlsx")
for name, data in KEEP.items():
    expect_bytes(os.path.join(D, name), data)
expect_entries(D, list(KEEP))
finish()
