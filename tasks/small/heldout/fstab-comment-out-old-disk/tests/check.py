import os, stat, sys

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


def expect_lines(path, want):
    got = lines_of(path)
    want = [line.rstrip() for line in want]
    if got is not None and got != want:
        fail(f"{path}: got {got[:12]!r}{' ...' if len(got) > 12 else ''}, expected {want[:12]!r}"
             f"{' ...' if len(want) > 12 else ''}")


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


def expect_no_extra(directory, names):
    extra = sorted(set(os.listdir(directory)) - set(names)) if os.path.isdir(directory) else []
    if extra:
        fail(f"unexpected new files in {directory}: {extra}")


def finish():
    for m in FAILS:
        print("FAIL:", m)
    if FAILS:
        sys.exit(1)
    print("all checks passed")


ORIGINAL = '# /etc/fstab: static file system information.\n#\n# <file system>                            <mount point>   <type>  <options>          <dump> <pass>\nUUID=3f1c9a52-7d4e-4b8a-9a61-0c2e5d7f1a10  /               ext4    errors=remount-ro  0      1\nUUID=8b2d4e61-1f3a-4c5b-8e7d-2a9f6c3b4d21  /boot/efi       vfat    umask=0077         0      1\nUUID=c41e7a93-5b2f-4d6e-9f80-1b3c5d7e9f32  /srv/data       xfs     defaults,noatime   0      2\n# /mnt/oldbackup: 2 TB USB disk from the old rack, see ticket OPS-311\nUUID=e92f3b14-6c8d-4a7e-b5f1-3d4c6e8a0b43  /mnt/oldbackup  ext4    defaults,nofail    0      2\ntmpfs                                      /tmp            tmpfs   size=2G,mode=1777  0      0\n'
OLD = "UUID=e92f3b14-6c8d-4a7e-b5f1-3d4c6e8a0b43  /mnt/oldbackup  ext4    defaults,nofail    0      2"
WANT = ORIGINAL.replace("\n" + OLD + "\n", "\n#" + OLD + "\n")
assert WANT != ORIGINAL
got = lines_of("/app/etc/fstab")
if got is not None and any(line.startswith("##") for line in got):
    fail("a line that was already a comment got a second '#'")
expect_lines("/app/etc/fstab", WANT.splitlines())
expect_no_extra("/app/etc", ["fstab"])
finish()
