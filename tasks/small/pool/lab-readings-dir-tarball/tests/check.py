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


import tarfile
WANT = {'readings/notes.txt': 'Station B sensor was recalibrated on 2024-04-28.\n', 'readings/station-a.csv': 'time,temp_c,humidity\n2024-05-01T06:00,11.2,81\n2024-05-01T12:00,17.9,55\n2024-05-01T18:00,15.4,63\n', 'readings/station-b.csv': 'time,temp_c,humidity\n2024-05-01T06:00,9.8,88\n2024-05-01T12:00,16.1,60\n2024-05-01T18:00,13.7,70\n'}
P = "/app/outbox/readings.tar.gz"
files = None
if not os.path.isfile(P):
    fail(f"{P} is missing")
else:
    try:
        with tarfile.open(P, "r:gz") as tf:
            files = {}
            for m in tf.getmembers():
                name = m.name[2:] if m.name.startswith("./") else m.name
                if m.isfile():
                    files[name] = tf.extractfile(m).read().decode("utf-8", "replace")
                elif not m.isdir():
                    fail(f"unexpected member {m.name} in the archive")
    except (tarfile.TarError, OSError, EOFError) as e:
        fail(f"{P} is not a gzip-compressed tar archive: {e}")
if files is not None:
    if set(files) != set(WANT):
        fail(f"archive holds {sorted(files)}, expected {sorted(WANT)}")
    else:
        for k, v in WANT.items():
            if files[k] != v:
                fail(f"{k} in the archive differs from the original")
for k, v in WANT.items():
    expect_text("/app/lab/" + k, v)
finish()
