import csv, sys
from pathlib import Path

def fail(msg):
    print("FAIL:", msg); sys.exit(1)

p = Path("/app/report/endpoints.csv")
if not p.is_file(): fail("missing /app/report/endpoints.csv")
with open(p, newline="") as f:
    got = [r for r in csv.reader(f) if r]
with open("/tests/expected_endpoints.csv", newline="") as f:
    exp = [r for r in csv.reader(f) if r]
if not got or [c.strip() for c in got[0]] != exp[0]: fail(f"bad header: {got[:1]}")
got = [[c.strip() for c in r] for r in got[1:]]
exp = exp[1:]
if len(got) != len(exp):
    fail(f"expected {len(exp)} endpoints, got {len(got)}: {[r[:2] for r in got]}")
for g, e in zip(got, exp):
    if g[:2] != e[:2]: fail(f"row order/endpoint mismatch: got {g} expected {e}")
    try:
        nums = [int(float(x)) for x in g[2:]]
    except ValueError:
        fail(f"non-numeric values in {g}")
    if nums != [int(x) for x in e[2:]]: fail(f"values for {e[0]} {e[1]}: got {g[2:]} expected {e[2:]}")
print("all checks passed")
