#!/bin/bash
set -e
cd /app

# step: largest-remainder allocation with exact (Fraction) arithmetic
python3 - <<'PY'
from pathlib import Path
p = Path("ledgerkit/allocate.py")
s = p.read_text()
s = s.replace('"""Splitting an amount of cents according to ratios."""\n',
              '"""Splitting an amount of cents according to ratios."""\nfrom fractions import Fraction\n', 1)
old = """    _check(ratios)
    total_ratio = sum(ratios)
    return [round(total_cents * r / total_ratio) for r in ratios]
"""
new = """    _check(ratios)
    fractions = [Fraction(r) for r in ratios]
    total_ratio = sum(fractions)
    exact = [Fraction(total_cents) * r / total_ratio for r in fractions]
    shares = [e.numerator // e.denominator for e in exact]
    leftover = total_cents - sum(shares)
    order = sorted(range(len(shares)), key=lambda i: (-(exact[i] - shares[i]), i))
    for i in order[:leftover]:
        shares[i] += 1
    return shares
"""
assert old in s
p.write_text(s.replace(old, new, 1))
PY

# step[easy-to-miss]: negative totals (credit notes) are split as the mirror image of the positive split
python3 - <<'PY'
from pathlib import Path
p = Path("ledgerkit/allocate.py")
s = p.read_text()
old = "    _check(ratios)\n    fractions = [Fraction(r) for r in ratios]\n"
new = ("    _check(ratios)\n    if total_cents < 0:\n        return [-share for share in allocate(-total_cents, ratios)]\n"
       "    fractions = [Fraction(r) for r in ratios]\n")
assert old in s
p.write_text(s.replace(old, new, 1))
PY
