import csv, json, math, sys
from pathlib import Path

def fail(msg):
    print("FAIL:", msg); sys.exit(1)

p = Path("/app/calib/calibration.json")
if not p.is_file(): fail("missing calibration.json")
try:
    got = json.loads(p.read_text())
except Exception as e:
    fail(f"calibration.json invalid: {e}")
exp = json.loads(Path("/tests/expected_calibration.json").read_text())
for k in ("c0", "c1", "c2"):
    v = got.get(k)
    if not isinstance(v, (int, float)) or not math.isclose(v, exp[k], rel_tol=1e-6, abs_tol=1e-9):
        fail(f"{k}={v!r}, expected {exp[k]!r}")

p = Path("/app/calib/field_results.csv")
if not p.is_file(): fail("missing field_results.csv")
g = [[c.strip() for c in r] for r in csv.reader(open(p, newline="")) if r]
e = [r for r in csv.reader(open("/tests/expected_field_results.csv", newline="")) if r]
if g[:1] != e[:1]: fail(f"bad header {g[:1]}")
if [r[0] for r in g[1:]] != [r[0] for r in e[1:]]: fail("sample ids/order differ")
for gr, er in zip(g[1:], e[1:]):
    if len(gr) != 3: fail(f"bad row {gr}")
    if gr[2] != er[2]: fail(f"{er[0]}: flag {gr[2]!r}, expected {er[2]!r}")
    if er[2] == "ok":
        try:
            ok = abs(float(gr[1]) - float(er[1])) <= 0.0015
        except ValueError:
            ok = False
        if not ok: fail(f"{er[0]}: concentration {gr[1]!r}, expected {er[1]}")
    elif gr[1] != "":
        fail(f"{er[0]}: out-of-range row must have an empty concentration")
print("all checks passed")
