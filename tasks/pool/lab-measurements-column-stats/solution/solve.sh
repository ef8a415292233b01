#!/bin/bash
set -e
cd /app
mkdir -p results

# step: look at the file and the missing-value markers
head -5 data/measurements.csv
grep -c 'NA' data/measurements.csv || true

# step[easy-to-miss]: load with NA/empty as NaN and compute nan-aware stats with the sample std (ddof=1)
python3 - <<'PY'
import csv, json
import numpy as np
cols = ["temp_c", "ph", "conductivity_us", "turbidity_ntu"]
rows = list(csv.DictReader(open("data/measurements.csv", newline="")))
val = lambda s: np.nan if s.strip() in ("", "NA") else float(s)
data = {c: np.array([val(r[c]) for r in rows]) for c in cols}
out = {}
for c in cols:
    v = np.asarray(data[c], dtype=float)
    v = v[~np.isnan(v)]
    out[c] = {"count": int(v.size), "mean": round(float(v.mean()), 6),
              "std": round(float(v.std(ddof=1)), 6), "median": round(float(np.median(v)), 6),
              "min": round(float(v.min()), 6), "max": round(float(v.max()), 6)}
json.dump(out, open("results/column_stats.json", "w"), indent=2)
print(json.dumps(out, indent=1))
PY

# step: per-site means of the numeric columns
python3 - <<'PY'
import csv
import numpy as np
cols = ["temp_c", "ph", "conductivity_us", "turbidity_ntu"]
rows = list(csv.DictReader(open("data/measurements.csv", newline="")))
val = lambda s: np.nan if s.strip() in ("", "NA") else float(s)
with open("results/site_means.csv", "w", newline="") as f:
    w = csv.writer(f, lineterminator="\n")
    w.writerow(["site"] + cols)
    for site in sorted({r["site"] for r in rows}):
        m = np.array([[val(r[c]) for c in cols] for r in rows if r["site"] == site])
        w.writerow([site] + [f"{x:.4f}" for x in np.nanmean(m, axis=0)])
PY
