import json, os, stat, sys

FAILS = []


def fail(msg):
    FAILS.append(msg)


def lines_of(path):
    """The file's lines (a missing final newline is tolerated), or None when it is missing."""
    if not os.path.isfile(path):
        fail(f"{path} is missing")
        return None
    with open(path, encoding="utf-8", errors="replace") as f:
        return f.read().splitlines()


def json_of(path):
    if not os.path.isfile(path):
        fail(f"{path} is missing")
        return None
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except ValueError as exc:
        fail(f"{path} is not valid JSON: {exc}")
        return None


def mode_of(path):
    return stat.S_IMODE(os.lstat(path).st_mode)


def expect_mode(path, want):
    if not os.path.lexists(path):
        fail(f"{path} is missing")
    elif os.path.islink(path):
        fail(f"{path} became a symlink")
    elif mode_of(path) != want:
        fail(f"{path}: mode {mode_of(path):04o}, expected {want:04o}")


def expect_lines(path, want):
    got = lines_of(path)
    if got is not None and got != want:
        fail(f"{path}: got {got[:12]!r}{' ...' if len(got) > 12 else ''}, expected {want[:12]!r}"
             f"{' ...' if len(want) > 12 else ''}")


def finish():
    for m in FAILS:
        print("FAIL:", m)
    if FAILS:
        sys.exit(1)
    print("all checks passed")


want = {'IMG_0001.jpg': 'fake image data for IMG_0001.JPG\n', 'IMG_0002.jpg': 'fake image data for IMG_0002.jpeg\n', 'IMG_0003.jpg': 'fake image data for IMG_0003.JPEG\n', 'IMG_0004.jpg': 'fake image data for IMG_0004.jpg\n', 'beach.jpg': 'fake image data for beach.Jpg\n', 'IMG_0005.png': 'fake image data for IMG_0005.png\n', 'notes.txt': 'fake image data for notes.txt\n', 'jpeg-export-settings.txt': 'fake image data for jpeg-export-settings.txt\n', 'sunset.jpg': 'fake image data for sunset.JPG\n'}
d = "/app/photos"
have = set(os.listdir(d)) if os.path.isdir(d) else set()
if have != set(want):
    fail(f"/app/photos holds {sorted(have)}, expected {sorted(want)}")
for n, text in want.items():
    p = os.path.join(d, n)
    if os.path.isfile(p) and open(p).read() != text:
        fail(f"{p} does not hold the data of the original file")
finish()
