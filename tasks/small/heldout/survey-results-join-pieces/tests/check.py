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


CSV = b'respondent,age_band,region,q1_satisfaction,q2_recommend,q3_visits_per_month\nR0001,18-24,south,2,maybe,4\nR0002,18-24,south,3,yes,5\nR0003,65+,west,5,no,6\nR0004,55-64,west,3,maybe,6\nR0005,55-64,north,3,yes,3\nR0006,55-64,north,5,no,3\nR0007,18-24,west,2,yes,8\nR0008,65+,west,2,yes,12\nR0009,25-34,west,2,no,5\nR0010,18-24,north,4,no,5\nR0011,35-44,central,2,yes,7\nR0012,25-34,south,2,no,8\nR0013,25-34,west,2,no,10\nR0014,25-34,west,4,maybe,9\nR0015,65+,north,4,maybe,1\nR0016,35-44,north,3,no,5\nR0017,35-44,south,1,maybe,6\nR0018,45-54,west,4,yes,7\nR0019,35-44,central,3,yes,4\nR0020,25-34,west,5,no,7\nR0021,55-64,south,3,yes,3\nR0022,65+,east,4,no,11\nR0023,35-44,central,1,yes,5\nR0024,65+,south,4,no,7\nR0025,55-64,east,5,no,4\nR0026,65+,west,2,maybe,3\nR0027,25-34,central,2,maybe,11\nR0028,35-44,west,5,maybe,7\nR0029,18-24,north,5,yes,9\nR0030,55-64,east,2,no,3\nR0031,65+,west,1,no,3\nR0032,35-44,south,5,yes,11\nR0033,65+,south,4,maybe,7\nR0034,55-64,south,4,yes,5\nR0035,45-54,east,1,no,5\nR0036,45-54,central,4,no,1\nR0037,18-24,south,4,yes,0\nR0038,18-24,central,1,maybe,12\nR0039,65+,east,3,yes,10\nR0040,65+,central,1,no,8\nR0041,65+,south,1,maybe,7\nR0042,18-24,north,3,no,10\nR0043,18-24,west,5,maybe,3\nR0044,35-44,south,2,maybe,12\nR0045,55-64,east,5,maybe,10\nR0046,55-64,east,5,maybe,1\nR0047,45-54,west,5,yes,5\nR0048,18-24,central,5,yes,10\nR0049,55-64,north,3,yes,3\nR0050,25-34,north,4,maybe,12\nR0051,45-54,east,1,yes,10\nR0052,45-54,north,5,yes,12\nR0053,45-54,west,1,no,12\nR0054,45-54,north,1,yes,1\nR0055,55-64,central,5,maybe,1\nR0056,45-54,east,3,yes,12\nR0057,55-64,west,1,yes,2\nR0058,35-44,west,3,no,0\nR0059,25-34,east,4,maybe,8\nR0060,65+,east,1,maybe,0\nR0061,55-64,central,3,maybe,7\nR0062,35-44,east,5,no,11\nR0063,45-54,north,3,yes,1\nR0064,65+,central,1,yes,5\nR0065,18-24,west,4,maybe,8\nR0066,25-34,west,1,maybe,12\nR0067,35-44,north,5,yes,10\nR0068,18-24,north,3,yes,6\nR0069,55-64,west,1,no,3\nR0070,25-34,south,5,yes,5\nR0071,45-54,central,5,no,8\nR0072,18-24,central,1,no,11\nR0073,45-54,central,5,yes,0\nR0074,65+,east,3,no,0\nR0075,45-54,east,1,maybe,11\nR0076,55-64,south,3,no,4\nR0077,35-44,south,1,no,0\nR0078,18-24,west,5,yes,6\nR0079,35-44,south,3,no,4\nR0080,25-34,west,4,maybe,12\nR0081,35-44,east,4,maybe,6\nR0082,18-24,east,4,yes,8\nR0083,65+,east,3,yes,11\nR0084,55-64,east,5,yes,11\nR0085,35-44,south,3,no,11\nR0086,35-44,south,2,no,5\nR0087,55-64,north,5,yes,12\nR0088,25-34,west,2,no,7\nR0089,55-64,east,3,maybe,6\nR0090,45-54,east,4,no,9\nR0091,35-44,west,5,maybe,11\nR0092,35-44,north,5,yes,6\nR0093,45-54,north,4,no,7\nR0094,65+,west,5,maybe,0\nR0095,55-64,south,1,no,3\nR0096,18-24,central,1,yes,4\nR0097,65+,south,3,maybe,11\nR0098,55-64,south,5,maybe,11\nR0099,55-64,east,2,no,5\nR0100,35-44,north,3,maybe,2\nR0101,25-34,east,3,maybe,5\nR0102,25-34,central,3,maybe,2\nR0103,25-34,west,5,yes,3\nR0104,65+,east,2,maybe,12\nR0105,45-54,east,4,no,4\nR0106,25-34,west,3,yes,11\nR0107,55-64,north,3,no,9\nR0108,35-44,west,1,yes,4\nR0109,45-54,central,4,maybe,8\nR0110,25-34,north,5,no,3\nR0111,65+,east,3,yes,4\nR0112,18-24,south,5,maybe,3\nR0113,25-34,south,3,maybe,2\nR0114,18-24,west,5,yes,1\nR0115,65+,north,4,maybe,3\nR0116,65+,central,1,yes,4\nR0117,25-34,central,5,no,7\nR0118,45-54,north,4,yes,3\nR0119,25-34,west,1,yes,7\nR0120,35-44,south,2,yes,12\nR0121,25-34,south,1,maybe,12\nR0122,65+,central,1,maybe,4\nR0123,65+,south,2,yes,4\nR0124,18-24,central,5,maybe,2\nR0125,35-44,west,3,maybe,0\nR0126,45-54,south,3,no,2\nR0127,45-54,south,4,yes,7\nR0128,65+,north,1,maybe,8\nR0129,35-44,south,5,maybe,7\nR0130,25-34,south,3,no,1\nR0131,65+,west,3,maybe,1\nR0132,18-24,west,1,no,7\nR0133,35-44,north,2,no,1\nR0134,65+,west,3,maybe,1\nR0135,65+,west,2,no,3\nR0136,35-44,east,5,maybe,11\nR0137,25-34,east,2,yes,6\nR0138,35-44,east,3,yes,9\nR0139,25-34,central,2,yes,0\nR0140,45-54,west,1,maybe,2\nR0141,35-44,west,1,no,8\nR0142,55-64,east,2,yes,5\nR0143,18-24,east,5,yes,12\nR0144,45-54,north,4,maybe,5\nR0145,65+,south,4,yes,11\nR0146,55-64,west,1,maybe,1\nR0147,25-34,east,1,no,8\nR0148,25-34,central,3,maybe,6\nR0149,65+,central,5,yes,11\nR0150,35-44,east,3,yes,12\n'
PIECES = {'responses-2024.csv.aa': b'respondent,age_band,region,q1_satisfaction,q2_recommend,q3_visits_per_month\nR0001,18-24,south,2,maybe,4\nR0002,18-24,south,3,yes,5\nR0003,65+,west,5,no,6\nR0004,55-64,west,3,maybe,6\nR0005,55-64,north,3,yes,3\nR0006,55-64,north,5,no,3\nR0007,18-24,west,2,yes,8\nR0008,65+,west,2,yes,12\nR0009,25-34,west,2,no,5\nR0010,18-24,north,4,no,5\nR0011,35-44,central,2,yes,7\nR0012,25-34,south,2,no,8\nR0013,25-34,west,2,no,10\nR0014,25-34,west,4,maybe,9\nR0015,65+,north,4,maybe,1\nR0016,35-44,north,3,no,5\nR0017,35-44,south,1,maybe,6\nR0018,45-54,west,4,yes,7\nR0019,35-44,central,3,yes,4\nR0020,25-34,west,5,no,7\nR0021,55-64,south,3,yes,3\nR0022,65+,east,4,no,11\nR0023,35-44,central,1,yes,5\nR0024,65+,south,4,no,7\nR0025,55-64,east,5,no,4\nR0026,65+,west,2,maybe,3\nR0027,25-34,central,2,maybe,11\nR0028,35-44,west,5,maybe,7\nR0029,18-24,north,5,yes,9\nR0030,55-64,east,2,no,3\nR0031,65+,west,1,no,3\nR0032,35-44,south,5,yes,11\nR0033,65+,south,4,maybe,7\nR0034,55-64,south,4,yes,5\nR0035,45-54,east,1,no,5\nR0036,45-54,central,4,no,1\nR0037,18-24,south,4,yes,0\nR0038,18-24,central,1,maybe,12\nR0039,65+,east,3,yes,10\nR0040,65+,central,1,no,8\nR0041,65+,south,1,maybe,7\nR0042,18-24,north,3,no,10\nR0043,18-24,west,5,maybe,3\nR0044,35-44,south,2,maybe,12\nR0045,55-64,east,5,maybe,10\nR0046,55-64,east,5,maybe,1\nR0047,45-54,west,5,yes,5\nR0048,18-24,central,5,yes,10\nR0049,55-6', 'responses-2024.csv.ab': b'4,north,3,yes,3\nR0050,25-34,north,4,maybe,12\nR0051,45-54,east,1,yes,10\nR0052,45-54,north,5,yes,12\nR0053,45-54,west,1,no,12\nR0054,45-54,north,1,yes,1\nR0055,55-64,central,5,maybe,1\nR0056,45-54,east,3,yes,12\nR0057,55-64,west,1,yes,2\nR0058,35-44,west,3,no,0\nR0059,25-34,east,4,maybe,8\nR0060,65+,east,1,maybe,0\nR0061,55-64,central,3,maybe,7\nR0062,35-44,east,5,no,11\nR0063,45-54,north,3,yes,1\nR0064,65+,central,1,yes,5\nR0065,18-24,west,4,maybe,8\nR0066,25-34,west,1,maybe,12\nR0067,35-44,north,5,yes,10\nR0068,18-24,north,3,yes,6\nR0069,55-64,west,1,no,3\nR0070,25-34,south,5,yes,5\nR0071,45-54,central,5,no,8\nR0072,18-24,central,1,no,11\nR0073,45-54,central,5,yes,0\nR0074,65+,east,3,no,0\nR0075,45-54,east,1,maybe,11\nR0076,55-64,south,3,no,4\nR0077,35-44,south,1,no,0\nR0078,18-24,west,5,yes,6\nR0079,35-44,south,3,no,4\nR0080,25-34,west,4,maybe,12\nR0081,35-44,east,4,maybe,6\nR0082,18-24,east,4,yes,8\nR0083,65+,east,3,yes,11\nR0084,55-64,east,5,yes,11\nR0085,35-44,south,3,no,11\nR0086,35-44,south,2,no,5\nR0087,55-64,north,5,yes,12\nR0088,25-34,west,2,no,7\nR0089,55-64,east,3,maybe,6\nR0090,45-54,east,4,no,9\nR0091,35-44,west,5,maybe,11\nR0092,35-44,north,5,yes,6\nR0093,45-54,north,4,no,7\nR0094,65+,west,5,maybe,0\nR0095,55-64,south,1,no,3\nR0096,18-24,central,1,yes,4\nR0097,65+,south,3,maybe,11\nR0098,55-64,south,5,maybe,11\nR0099,55-64,east,2,no,5\nR0100,3', 'responses-2024.csv.ac': b'5-44,north,3,maybe,2\nR0101,25-34,east,3,maybe,5\nR0102,25-34,central,3,maybe,2\nR0103,25-34,west,5,yes,3\nR0104,65+,east,2,maybe,12\nR0105,45-54,east,4,no,4\nR0106,25-34,west,3,yes,11\nR0107,55-64,north,3,no,9\nR0108,35-44,west,1,yes,4\nR0109,45-54,central,4,maybe,8\nR0110,25-34,north,5,no,3\nR0111,65+,east,3,yes,4\nR0112,18-24,south,5,maybe,3\nR0113,25-34,south,3,maybe,2\nR0114,18-24,west,5,yes,1\nR0115,65+,north,4,maybe,3\nR0116,65+,central,1,yes,4\nR0117,25-34,central,5,no,7\nR0118,45-54,north,4,yes,3\nR0119,25-34,west,1,yes,7\nR0120,35-44,south,2,yes,12\nR0121,25-34,south,1,maybe,12\nR0122,65+,central,1,maybe,4\nR0123,65+,south,2,yes,4\nR0124,18-24,central,5,maybe,2\nR0125,35-44,west,3,maybe,0\nR0126,45-54,south,3,no,2\nR0127,45-54,south,4,yes,7\nR0128,65+,north,1,maybe,8\nR0129,35-44,south,5,maybe,7\nR0130,25-34,south,3,no,1\nR0131,65+,west,3,maybe,1\nR0132,18-24,west,1,no,7\nR0133,35-44,north,2,no,1\nR0134,65+,west,3,maybe,1\nR0135,65+,west,2,no,3\nR0136,35-44,east,5,maybe,11\nR0137,25-34,east,2,yes,6\nR0138,35-44,east,3,yes,9\nR0139,25-34,central,2,yes,0\nR0140,45-54,west,1,maybe,2\nR0141,35-44,west,1,no,8\nR0142,55-64,east,2,yes,5\nR0143,18-24,east,5,yes,12\nR0144,45-54,north,4,maybe,5\nR0145,65+,south,4,yes,11\nR0146,55-64,west,1,maybe,1\nR0147,25-34,east,1,no,8\nR0148,25-34,central,3,maybe,6\nR0149,65+,central,5,yes,11\nR0150,35-44,east,3,yes,12\n'}
SHA = '12cdd89cf134d40cee5dd8db4178b44f1b4faeab7b8024cb9b310dfeb18c028c  responses-2024.csv\n'
D = "/app/transfer"
OUTF = D + "/responses-2024.csv"
data = bytes_of(OUTF)
if data is not None and data != CSV:
    if data.startswith(CSV) and SHA.encode() in data[len(CSV):]:
        fail(f"{OUTF} ends with the checksum file: only the pieces .aa, .ab and .ac are joined")
    else:
        fail(f"{OUTF} does not match the checksum (pieces missing, in the wrong order or changed)")
for name, piece in PIECES.items():
    expect_bytes(os.path.join(D, name), piece, "was changed or removed; the pieces must be kept")
expect_bytes(D + "/responses-2024.csv.sha256", SHA.encode(), "was changed")
expect_listing(D, list(PIECES) + ["responses-2024.csv.sha256", "responses-2024.csv"])
finish()
