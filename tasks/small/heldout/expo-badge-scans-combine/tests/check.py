import gzip, hashlib, os, stat, sys, tarfile

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


def expect_bytes(path, want, what="does not have the expected content"):
    got = bytes_of(path)
    if got is not None and got != want:
        fail(f"{path} {what}")


def expect_absent(path, why="should not exist"):
    if os.path.lexists(path):
        fail(f"{path} {why}")


def mode_of(path):
    return stat.S_IMODE(os.lstat(path).st_mode)


def expect_mode(path, want):
    if not os.path.lexists(path):
        fail(f"{path} is missing")
    elif os.path.islink(path):
        fail(f"{path} became a symlink")
    elif mode_of(path) != want:
        fail(f"{path}: mode {mode_of(path):04o}, expected {want:04o}")


def expect_listing(directory, names):
    """The directory holds exactly ``names`` (nothing missing, nothing new)."""
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


HEADER = 'badge_id,name,company,scanned_at'
DAY1 = ['B-1041,Marta Nowak,Rowing Supplies Ltd,2024-09-10 09:14', 'B-0877,Kwame Mensah,Harbor Tech,2024-09-10 09:52', 'B-1310,Lena Fischer,Alpine Gear GmbH,2024-09-10 10:31', 'B-0452,Tom Reilly,Reilly & Sons,2024-09-10 11:05', 'B-1188,Sofia Greco,Greco Outdoor,2024-09-10 13:40', 'B-0999,Jin Park,Seoul Cycles,2024-09-10 14:22', 'B-1502,Nadia Ivanova,Volga Trade,2024-09-10 15:18', 'B-0623,Pedro Alves,Lisboa Sports,2024-09-10 16:47']
DAY2 = ['B-1777,Olivia Brown,Peak Retail,2024-09-11 09:03', 'B-0315,Yusuf Demir,Anatolia Bikes,2024-09-11 10:12', 'B-1041,Marta Nowak,Rowing Supplies Ltd,2024-09-11 10:55', 'B-1624,Emma Larsen,Nordic Trail AS,2024-09-11 12:30', 'B-0742,Carlos Ruiz,Ruiz Deportes,2024-09-11 14:09', 'B-1905,Aiko Tanaka,Kyoto Outfitters,2024-09-11 15:44']
D1, D2 = 'badge_id,name,company,scanned_at\nB-1041,Marta Nowak,Rowing Supplies Ltd,2024-09-10 09:14\nB-0877,Kwame Mensah,Harbor Tech,2024-09-10 09:52\nB-1310,Lena Fischer,Alpine Gear GmbH,2024-09-10 10:31\nB-0452,Tom Reilly,Reilly & Sons,2024-09-10 11:05\nB-1188,Sofia Greco,Greco Outdoor,2024-09-10 13:40\nB-0999,Jin Park,Seoul Cycles,2024-09-10 14:22\nB-1502,Nadia Ivanova,Volga Trade,2024-09-10 15:18\nB-0623,Pedro Alves,Lisboa Sports,2024-09-10 16:47\n', 'badge_id,name,company,scanned_at\nB-1777,Olivia Brown,Peak Retail,2024-09-11 09:03\nB-0315,Yusuf Demir,Anatolia Bikes,2024-09-11 10:12\nB-1041,Marta Nowak,Rowing Supplies Ltd,2024-09-11 10:55\nB-1624,Emma Larsen,Nordic Trail AS,2024-09-11 12:30\nB-0742,Carlos Ruiz,Ruiz Deportes,2024-09-11 14:09\nB-1905,Aiko Tanaka,Kyoto Outfitters,2024-09-11 15:44\n'
OUTF = "/app/expo/scans-all.csv"
data = bytes_of(OUTF)
if data is not None:
    got = [line.rstrip() for line in data.decode("utf-8", "replace").splitlines()]
    want = [HEADER] + DAY1 + DAY2
    if got.count(HEADER) > 1:
        fail(f"{OUTF} has the header line {got.count(HEADER)} times; it must appear once, at the top")
    elif got != want:
        fail(f"{OUTF}: got {got[:4]!r}... ({len(got)} lines), expected {want[:4]!r}... ({len(want)} lines)")
expect_bytes("/app/expo/scans-day1.csv", D1.encode(), "was changed")
expect_bytes("/app/expo/scans-day2.csv", D2.encode(), "was changed")
expect_listing("/app/expo", ["scans-day1.csv", "scans-day2.csv", "scans-all.csv"])
finish()
