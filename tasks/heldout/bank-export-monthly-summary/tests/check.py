import csv, sys
from pathlib import Path

def fail(msg):
    print("FAIL:", msg); sys.exit(1)

p = Path("/app/reports/monthly_summary.csv")
if not p.is_file(): fail("missing /app/reports/monthly_summary.csv")
g = [[c.strip() for c in r] for r in csv.reader(open(p, newline="", encoding="utf-8")) if r]
e = [r for r in csv.reader(open("/tests/expected_monthly_summary.csv", newline="")) if r]
if g[:1] != e[:1]: fail(f"bad header {g[:1]}")
if [r[0] for r in g[1:]] != [r[0] for r in e[1:]]: fail(f"months/order {[r[0] for r in g[1:]]}")
for gr, er in zip(g[1:], e[1:]):
    if len(gr) != 5: fail(f"bad row {gr}")
    try:
        vals = [float(x) for x in gr[1:4]]
        n = int(gr[4])
    except ValueError:
        fail(f"{er[0]}: non-numeric values {gr[1:]} (dot decimals, no thousands separators)")
    for name, v, x in zip(("income", "expenses", "net"), vals, er[1:4]):
        if abs(v - float(x)) > 0.005: fail(f"{er[0]} {name}: got {v}, expected {x}")
    if n != int(er[4]): fail(f"{er[0]} transactions: got {n}, expected {er[4]}")
print("all checks passed")
