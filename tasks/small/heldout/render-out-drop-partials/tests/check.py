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


MP4 = {'intro.mp4': b'FAKE-MP4 intro 1920x1080 00:00:12\n', 'scene-02.mp4': b'FAKE-MP4 scene-02 1920x1080 00:01:40\n'}
PART = {'scene-03.mp4.part': b'partial render of scene-03, frame 1211 of 2400\n', 'scene-04.mp4.part': b'partial render of scene-04, frame 88 of 3100\n', 'credits.mp4.part': b'partial render of credits, frame 40 of 720\n'}
HOLD = {'scene-05.mp4.part': b'partial render of scene-05, frame 2210 of 2650 (node r7)\n', 'notes.txt': b'scene-05 is still rendering on node r7, do not touch\n'}

D = "/app/render/out"
for name in PART:
    expect_absent(f"{D}/{name}")
for name, want in MP4.items():
    expect_bytes(f"{D}/{name}", want)
for name, want in HOLD.items():
    expect_bytes(f"{D}/hold/{name}", want)
finish()
