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


SETTINGS = b'<?xml version="1.0" encoding="utf-8"?>\n<ServerConfiguration>\n  <LibraryPath>/app/srv/mediaserver/library</LibraryPath>\n  <TranscodeThreads>2</TranscodeThreads>\n</ServerConfiguration>\n'
NAS = {
    'movies/the-long-heist-2019.mkv': b'matroska stand-in: The Long Heist (2019), 1080p\n',
    'music/harbor-lights/01-tidewater.flac': b'flac stand-in: Harbor Lights - Tidewater\n',
    'photos/2024/lisbon-017.jpg': b'jpeg stand-in: Lisbon, tram 28\n',
}
M = "/app/mnt/nas/media"
L = "/app/srv/mediaserver/library"
if not os.path.islink(L):
    fail(f"{L} is not a symbolic link" + (" (still a directory: the link may have been created inside it)"
                                          if os.path.isdir(L) else ""))
elif os.readlink(L) != M:
    fail(f"{L} -> {os.readlink(L)!r}, expected {M!r}")
if not os.path.isdir(M) or os.path.islink(M):
    fail(f"{M} is not a directory any more")
else:
    found = set()
    for d, dirs, files in os.walk(M):
        for n in files + [x for x in dirs if os.path.islink(os.path.join(d, x))]:
            found.add(os.path.relpath(os.path.join(d, n), M))
    if found != set(NAS):
        fail(f"{M}: missing {sorted(set(NAS) - found)}, unexpected {sorted(found - set(NAS))}")
    for rel, data in NAS.items():
        expect_bytes(os.path.join(M, rel), data)
expect_entries("/app/srv/mediaserver", ["config", "library"])
expect_bytes("/app/srv/mediaserver/config/settings.xml", SETTINGS)
finish()
