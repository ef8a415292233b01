import hashlib, os, sys

FAILS = []
D = "/app/firmware"
SIZE = 6137
DIGEST = "a81dd17a6aa0eb1c5193a64a20e0aaa18ea1f54ada62d33758b09cf6886f760d"


def fail(msg):
    FAILS.append(msg)


def lines_of(path):
    """The file's non-empty lines, trailing spaces dropped, or None when it is missing."""
    if not os.path.isfile(path):
        fail(f"{path} is missing")
        return None
    with open(path, encoding="utf-8", errors="replace") as f:
        return [line.rstrip() for line in f.read().splitlines() if line.strip()]


def finish():
    for m in FAILS:
        print("FAIL:", m)
    if FAILS:
        sys.exit(1)
    print("all checks passed")


fw = os.path.join(D, "router-v2.bin")
if not os.path.isfile(fw):
    fail(f"{fw} is missing")
else:
    with open(fw, "rb") as f:
        if hashlib.sha256(f.read()).hexdigest() != DIGEST:
            fail(f"{fw} was changed")

size = lines_of(os.path.join(D, "router-v2.size"))
if size is not None and [s.strip() for s in size] != [str(SIZE)]:
    fail(f"router-v2.size: expected the single number {SIZE}, got {size[:3]!r}")

sums = lines_of(os.path.join(D, "router-v2.sha256"))
if sums is not None:
    if len(sums) != 1:
        fail(f"router-v2.sha256: expected one line, got {len(sums)}")
    else:
        parts = sums[0].split()
        if not parts or parts[0].lower() != DIGEST:
            fail(f"router-v2.sha256: the checksum is not the SHA-256 of router-v2.bin: {sums[0]!r}")
        elif len(parts) != 2 or os.path.basename(parts[1].lstrip("*")) != "router-v2.bin":
            fail(f"router-v2.sha256: expected `<checksum>  router-v2.bin`, got {sums[0]!r}")
finish()
