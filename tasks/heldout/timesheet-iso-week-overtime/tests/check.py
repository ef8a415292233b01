import csv, sys
from pathlib import Path

def fail(msg):
    print("FAIL:", msg); sys.exit(1)

p = Path("/app/payroll/weekly_hours.csv")
if not p.is_file(): fail("missing /app/payroll/weekly_hours.csv")
got = [[c.strip() for c in r] for r in csv.reader(open(p, newline="")) if r]
exp = [r for r in csv.reader(open("/tests/expected_weekly_hours.csv", newline="")) if r]
if got[:1] != exp[:1]: fail(f"bad header {got[:1]}")
gk = [tuple(r[:2]) for r in got[1:]]
ek = [tuple(r[:2]) for r in exp[1:]]
if set(gk) != set(ek):
    fail(f"employee/week keys differ: unexpected {sorted(set(gk) - set(ek))[:5]}, missing {sorted(set(ek) - set(gk))[:5]}")
if gk != ek: fail("rows not sorted by employee, then week")
for g, e in zip(got[1:], exp[1:]):
    try:
        ok = abs(float(g[2]) - float(e[2])) < 0.006 and abs(float(g[3]) - float(e[3])) < 0.006
    except (ValueError, IndexError):
        ok = False
    if not ok: fail(f"{e[0]} {e[1]}: got {g[2:]} expected {e[2:]}")
print("all checks passed")
