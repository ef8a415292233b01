import gzip, os, sys

FAILS = []
D = "/app/logs"
EXPECTED = {
    'api.log': [
        '2024-05-14 08:00:01 INFO  api started, version 3.2.0',
        '2024-05-14 08:00:07 INFO  GET /v1/orders 200 41ms',
        '2024-05-14 08:01:12 INFO  GET /v1/orders/1182 200 12ms',
        '2024-05-14 08:02:40 WARN  slow query on orders_by_customer 812ms',
        '2024-05-14 08:03:05 INFO  POST /v1/orders 201 66ms',
    ],
    'api.log.1': [
        '2024-05-13 22:10:44 INFO  GET /v1/products 200 18ms',
        '2024-05-13 22:11:02 INFO  GET /v1/products/77 200 9ms',
        '2024-05-13 23:59:59 INFO  log rotated',
    ],
    'api.log.2': [
        '2024-05-12 09:14:03 INFO  api started, version 3.1.4',
        '2024-05-12 09:15:21 INFO  GET /v1/customers/88 200 14ms',
        '2024-05-12 09:17:49 ERROR payment provider timeout after 30000ms (order 1107)',
        '2024-05-12 09:17:50 WARN  retrying payment for order 1107',
        '2024-05-12 09:18:20 INFO  payment for order 1107 captured',
        '2024-05-12 23:59:59 INFO  log rotated',
    ],
    'api.log.3': [
        '2024-05-11 10:02:11 INFO  GET /v1/orders?page=2 200 37ms',
        '2024-05-11 10:05:30 ERROR database connection reset by peer',
        '2024-05-11 10:05:31 WARN  reconnecting to database (attempt 1)',
        '2024-05-11 10:05:33 INFO  database connection restored',
        '2024-05-11 14:40:08 INFO  DELETE /v1/carts/5521 204 8ms',
        '2024-05-11 23:59:59 INFO  log rotated',
    ],
}


def fail(msg):
    FAILS.append(msg)


def norm(text):
    """Lines without trailing spaces; a missing final newline is tolerated."""
    return [line.rstrip() for line in text.splitlines()]


def finish():
    for m in FAILS:
        print("FAIL:", m)
    if FAILS:
        sys.exit(1)
    print("all checks passed")


for name in ("api.log.2", "api.log.3"):
    plain, packed = os.path.join(D, name), os.path.join(D, name + ".gz")
    if not os.path.isfile(plain):
        fail(f"{plain} is missing")
    else:
        with open(plain, "rb") as f:
            data = f.read()
        if data[:2] == b"\x1f\x8b":
            fail(f"{plain} is still gzip-compressed")
        elif norm(data.decode("utf-8", "replace")) != EXPECTED[name]:
            fail(f"{plain} does not hold the decompressed log")
    if not os.path.isfile(packed):
        fail(f"{packed} is missing: the .gz files must be kept")
    else:
        try:
            with gzip.open(packed, "rb") as f:
                if norm(f.read().decode("utf-8", "replace")) != EXPECTED[name]:
                    fail(f"{packed} was changed")
        except (OSError, EOFError) as exc:
            fail(f"{packed} is no longer a valid gzip file: {exc}")

for name in ("api.log", "api.log.1"):
    path = os.path.join(D, name)
    if not os.path.isfile(path):
        fail(f"{path} is missing")
    else:
        with open(path, encoding="utf-8", errors="replace") as f:
            if norm(f.read()) != EXPECTED[name]:
                fail(f"{path} was changed")
finish()
