import os, stat, sys

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


def expect_absent(path):
    if os.path.lexists(path):
        fail(f"{path} should not exist any more")


def mode_of(path):
    return stat.S_IMODE(os.lstat(path).st_mode)


def expect_mode(path, want):
    if not os.path.lexists(path):
        fail(f"{path} is missing")
    elif os.path.islink(path):
        fail(f"{path} became a symlink")
    elif mode_of(path) != want:
        fail(f"{path}: mode {mode_of(path):04o}, expected {want:04o}")


def finish():
    for m in FAILS:
        print("FAIL:", m)
    if FAILS:
        sys.exit(1)
    print("all checks passed")


PKG = b'{\n  "name": "webapp",\n  "version": "0.9.0",\n  "scripts": {"test": "vitest run --coverage"}\n}\n'

G = "/app/webapp/.gitignore"
data = bytes_of(G)
if data is not None:
    got = [line.rstrip() for line in data.decode("utf-8", "replace").splitlines()]
    want = ["node_modules/", "dist/", "*.log", ".env", ".DS_Store", "coverage/"]
    if got != want:
        fail(f"{G} holds {got[:10]!r}, expected {want!r}")
expect_bytes("/app/webapp/package.json", PKG)
finish()
