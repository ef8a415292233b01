import csv, json, math, statistics, sys
from pathlib import Path

def fail(msg):
    print("FAIL:", msg); sys.exit(1)

cols = ["temp_c", "ph", "conductivity_us", "turbidity_ntu"]
rows = list(csv.DictReader(open("/tests/measurements.csv", newline="")))
def vals(rs, c):
    return [float(r[c]) for r in rs if r[c].strip() not in ("", "NA")]

p = Path("/app/results/column_stats.json")
if not p.is_file(): fail("missing /app/results/column_stats.json")
try:
    got = json.loads(p.read_text())
except Exception as e:
    fail(f"invalid JSON: {e}")
for c in cols:
    v = vals(rows, c)
    exp = {"count": len(v), "mean": statistics.fmean(v), "std": statistics.stdev(v),
           "median": statistics.median(v), "min": min(v), "max": max(v)}
    g = got.get(c)
    if not isinstance(g, dict): fail(f"missing stats for {c}")
    if g.get("count") != exp["count"]: fail(f"{c}.count={g.get('count')!r}, expected {exp['count']}")
    for k in ("mean", "std", "median", "min", "max"):
        x = g.get(k)
        if not isinstance(x, (int, float)) or not math.isclose(x, exp[k], rel_tol=1e-9, abs_tol=2e-6):
            fail(f"{c}.{k}={x!r}, expected {exp[k]:.6f}")

p = Path("/app/results/site_means.csv")
if not p.is_file(): fail("missing /app/results/site_means.csv")
got = [r for r in csv.reader(open(p, newline="")) if r]
if got[0] != ["site"] + cols: fail(f"bad header {got[0]}")
sites = sorted({r["site"] for r in rows})
if [r[0] for r in got[1:]] != sites: fail(f"sites/order: {[r[0] for r in got[1:]]}")
for r in got[1:]:
    for c, x in zip(cols, r[1:]):
        e = statistics.fmean(vals([q for q in rows if q["site"] == r[0]], c))
        try:
            ok = abs(float(x) - e) <= 6e-5
        except ValueError:
            ok = False
        if not ok: fail(f"site {r[0]} {c}: got {x}, expected {e:.4f}")
print("all checks passed")
