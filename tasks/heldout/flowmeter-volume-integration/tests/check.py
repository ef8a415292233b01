import csv, sys
from pathlib import Path

def fail(msg):
    print("FAIL:", msg); sys.exit(1)

p = Path("/app/flow/volumes.csv")
if not p.is_file(): fail("missing /app/flow/volumes.csv")
g = [[c.strip() for c in r] for r in csv.reader(open(p, newline="")) if r]
e = [r for r in csv.reader(open("/tests/expected_volumes.csv", newline="")) if r]
if g[:1] != e[:1]: fail(f"bad header {g[:1]}")
if [r[0] for r in g[1:]] != [r[0] for r in e[1:]]: fail(f"meters/order {[r[0] for r in g[1:]]}")
for gr, er in zip(g[1:], e[1:]):
    try:
        h, v = float(gr[1]), float(gr[2])
    except (ValueError, IndexError):
        fail(f"bad row {gr}")
    if abs(h - float(er[1])) > 0.0015: fail(f"{er[0]}: hours {gr[1]}, expected {er[1]}")
    if abs(v - float(er[2])) > 0.0002: fail(f"{er[0]}: volume_m3 {gr[2]}, expected {er[2]}")
print("all checks passed")
