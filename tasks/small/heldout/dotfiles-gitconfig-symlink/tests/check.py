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


GITCONFIG = b'[user]\n\tname = Ana Ribeiro\n\temail = ana@example.com\n[init]\n\tdefaultBranch = main\n[pull]\n\trebase = true\n'
VIMRC = b'set number\nset expandtab\nset shiftwidth=4\n'
BASHRC = b"export EDITOR=vim\nalias ll='ls -la'\n"

L = "/app/home/ana/.gitconfig"
if not os.path.islink(L):
    fail(f"{L} is not a symbolic link" + (" (still the old file, or a copy)" if os.path.exists(L) else ""))
elif os.readlink(L) != "/app/dotfiles/gitconfig":
    fail(f"{L} -> {os.readlink(L)!r}, expected '/app/dotfiles/gitconfig'")
expect_bytes("/app/dotfiles/gitconfig", GITCONFIG)
expect_bytes("/app/dotfiles/vimrc", VIMRC)
expect_bytes("/app/home/ana/.bashrc", BASHRC)
finish()
