#!/usr/bin/env python3
"""Regression check for shopcart's cart totals.

    python3 /app/check_totals.py [REPO_DIR]      (default: /app/shopcart)

Exit status: 0 totals are right, 1 totals are wrong,
             2 the cart module cannot be imported at all (broken checkout).
"""
import sys
from decimal import Decimal

repo = sys.argv[1] if len(sys.argv) > 1 else "/app/shopcart"
sys.path.insert(0, repo)
try:
    import cart
except Exception as exc:  # syntax errors in WIP commits, missing files, ...
    print(f"cannot import cart from {repo}: {exc!r}")
    sys.exit(2)

CASES = [
    (("2.675", 5, "standard"), Decimal("16.06")),
    (("19.99", 3, "standard"), Decimal("71.96")),
    (("4.10", 7, "reduced"), Decimal("30.14")),
    (("0.35", 3, "standard"), Decimal("1.26")),
    (("12.00", 1, "zero"), Decimal("12.00")),
]

failed = 0
for args, expected in CASES:
    got = cart.line_total(*args)
    if got != expected:
        print(f"line_total{args} = {got}, expected {expected}")
        failed += 1
print("OK" if not failed else f"{failed} wrong total(s)")
sys.exit(1 if failed else 0)
