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


PGREADME = b'PostgreSQL data lives below this directory, one subdirectory per major version.\n'

M = "/app/pgdata/16/main"
if not os.path.isdir(M) or os.path.islink(M):
    fail(f"{M} is not a directory")
else:
    expect_mode(M, 0o700)
if not os.path.isdir("/app/pgdata/16") or os.path.islink("/app/pgdata/16"):
    fail("/app/pgdata/16 is not a directory")
expect_mode("/app/pgdata", 0o755)
expect_bytes("/app/pgdata/README.txt", PGREADME)
expect_mode("/app/pgdata/README.txt", 0o644)
finish()
