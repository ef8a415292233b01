import hashlib, os, sys

FAILS = []
WANT = "registry.acme.internal:5000/shop/checkout:2.7.1-b418"
ENV_SHA256 = "5a34e416703c61b4c811cc3e82680ce8bc05b6d4b2493bd3e642118d72052ba5"


def fail(msg):
    FAILS.append(msg)


def finish():
    for m in FAILS:
        print("FAIL:", m)
    if FAILS:
        sys.exit(1)
    print("all checks passed")


out = "/app/ci/image_ref.txt"
if not os.path.isfile(out):
    fail(f"{out} is missing")
else:
    with open(out, encoding="utf-8", errors="replace") as f:
        lines = [line.strip() for line in f.read().splitlines() if line.strip()]
    if lines != [WANT]:
        fail(f"{out}: expected the single line {WANT!r}, got {lines[:3]!r}")

src = "/app/ci/image.env"
if not os.path.isfile(src):
    fail(f"{src} is missing")
else:
    with open(src, "rb") as f:
        if hashlib.sha256(f.read()).hexdigest() != ENV_SHA256:
            fail(f"{src} was changed")
finish()
