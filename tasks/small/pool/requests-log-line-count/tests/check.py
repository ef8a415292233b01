import os, sys

FAILS = []


def fail(msg):
    FAILS.append(msg)


def lines_of(path):
    """The file's lines with trailing spaces cut (a missing final newline is tolerated), or None when missing."""
    if not os.path.isfile(path):
        fail(f"{path} is missing")
        return None
    with open(path, encoding="utf-8", errors="replace") as f:
        return [line.rstrip() for line in f.read().splitlines()]


def expect_lines(path, want):
    got = lines_of(path)
    want = [line.rstrip() for line in want]
    if got is not None and got != want:
        fail(f"{path}: got {got[:12]!r}{' ...' if len(got) > 12 else ''}, expected {want[:12]!r}"
             f"{' ...' if len(want) > 12 else ''}")


def expect_bytes(path, want):
    if not os.path.isfile(path):
        fail(f"{path} is missing")
    elif open(path, "rb").read() != want:
        fail(f"{path} does not have the expected content")


def finish():
    for m in FAILS:
        print("FAIL:", m)
    if FAILS:
        sys.exit(1)
    print("all checks passed")


got = lines_of("/app/request_count.txt")
if got is not None and [l.strip() for l in got if l.strip()] != ["23"]:
    fail(f"/app/request_count.txt holds {got!r}, expected just the number of lines of the log")
expect_lines("/app/logs/requests.log", ['2024-06-11T08:03:25Z POST /api/orders 200 39ms', '2024-06-11T08:05:45Z GET /api/orders 200 467ms', '2024-06-11T08:07:57Z GET /api/orders/17 200 224ms', '2024-06-11T08:09:47Z GET /api/orders/17 200 284ms', '2024-06-11T08:11:38Z PUT /api/orders/17 200 116ms', '2024-06-11T08:14:22Z PUT /api/orders 404 297ms', '2024-06-11T08:16:54Z GET /api/cart 201 25ms', '2024-06-11T08:19:19Z GET /health 500 216ms', '2024-06-11T08:19:58Z GET /health 204 288ms', '2024-06-11T08:20:47Z PUT /api/cart 200 192ms', '2024-06-11T08:21:14Z GET /api/orders 204 318ms', '2024-06-11T08:22:09Z PUT /api/checkout 201 399ms', '2024-06-11T08:23:32Z PUT /api/products/88 201 187ms', '2024-06-11T08:24:51Z GET /api/cart 200 43ms', '2024-06-11T08:27:21Z PUT /api/products/88 200 450ms', '2024-06-11T08:28:51Z POST /health 404 313ms', '2024-06-11T08:29:12Z PUT /api/checkout 200 86ms', '2024-06-11T08:30:42Z POST /api/checkout 200 22ms', '2024-06-11T08:31:04Z PUT /api/products?page=2 500 176ms', '2024-06-11T08:32:36Z POST /api/products/88 204 37ms', '2024-06-11T08:33:02Z POST /api/orders/17 200 33ms', '2024-06-11T08:34:24Z PUT /api/products/88 404 147ms', '2024-06-11T08:36:05Z GET /api/orders 404 238ms'])
finish()
