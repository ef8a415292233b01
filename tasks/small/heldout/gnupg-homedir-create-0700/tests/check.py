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


BASHRC = b'export GNUPGHOME=$HOME/.gnupg\nexport PATH=$HOME/bin:$PATH\n'
H = "/app/home/build"
G = H + "/.gnupg"
P = G + "/private-keys-v1.d"
for d in (G, P):
    if not os.path.isdir(d) or os.path.islink(d):
        fail(f"{d} is not a directory")
    else:
        expect_mode(d, 0o700)
expect_entries(G, ["private-keys-v1.d"])
expect_mode(H, 0o755)
expect_entries(H, [".bashrc", ".gnupg"])
expect_bytes(H + "/.bashrc", BASHRC)
expect_mode(H + "/.bashrc", 0o644)
finish()
