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


def expect_lines(path, want, got=...):
    got = lines_of(path) if got is ... else got
    want = [line.rstrip() for line in want]
    if got is not None and got != want:
        fail(f"{path}: got {got[:12]!r}{' ...' if len(got) > 12 else ''}, expected {want[:12]!r}"
             f"{' ...' if len(want) > 12 else ''}")


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


ORIGINAL = 'stop_id,stop_name,stop_lat,stop_lon,zone_id\nST1001,Central Station,60.372383,5.264136,B\nST1008,Harbour Square,60.405093,5.251590,B\nST1015,Old Town Gate,60.393588,5.298510,A\nST1022,Market Hall,60.345800,5.321190,B\nST1029,University North,60.343750,5.309383,B\nST1036,University South,60.346986,5.254514,B\nST1043,Riverside Park,60.382452,5.372296,B\nST1050,Fire Station,60.352380,5.275718,B\nST1057,Lindenweg,60.402743,5.391633,B\nST1064,Cathedral,60.397710,5.303469,A\nST1071,Museum Quarter,60.437626,5.247453,B\nST1078,Tram Depot,60.425847,5.286337,B\nST1085,Hospital Main Entrance,60.354426,5.258847,B\nST1092,Botanical Garden,60.370848,5.370580,B\nST1099,Fishermens Wharf,60.358073,5.333056,B\nST1106,Ferry Terminal,60.403891,5.299584,A\nST1113,Stadium,60.394774,5.250046,B\nST1120,Exhibition Centre,60.345960,5.272953,B\nST1127,Oak Lane,60.408040,5.308415,A\nST1134,Chestnut Avenue,60.371415,5.333690,A\nST1141,Brewery Yard,60.385318,5.287963,A\nST1148,Library,60.419438,5.351839,A\nST1155,City Hall,60.364410,5.331908,A\nST1162,Observatory Hill,60.392520,5.380022,B\nST1169,Sawmill Road,60.412945,5.286070,A\nST1176,Kingsbridge,60.438017,5.258891,B\nST1183,Canal Lock,60.381812,5.361143,A\nST1190,Windmill Street,60.355198,5.318234,B\nST1197,Airport Shuttle Stop,60.343921,5.346915,B\nST1204,Northgate,60.416457,5.331684,A\nST1211,Southgate,60.427548,5.290200,B\nST1218,Eastfield School,60.409530,5.335099,A\nST1225,Westfield Mall,60.397990,5.312993,A\nST1232,Quarry Lane,60.423997,5.391149,B\nST1239,Glassworks,60.387410,5.346264,A\nST1246,Lighthouse,60.346067,5.352239,B\nST1253,Pier 4,60.404713,5.398895,B\nST1260,Velodrome,60.422192,5.285535,B\nST1267,Rose Garden,60.378579,5.346984,A\nST1274,Clock Tower,60.342256,5.313871,B\n'
WANT = ORIGINAL.splitlines()[:16]
OUT = "/app/gtfs/stops-sample.txt"
got = lines_of(OUT)
if got is not None and got == WANT[:15]:
    fail(f"{OUT}: only 14 stops after the header; the header plus 15 stops is 16 lines")
expect_lines(OUT, WANT, got)
expect_text("/app/gtfs/stops.txt", ORIGINAL)
finish()
