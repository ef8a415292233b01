#!/bin/bash
set -e
cd /app/calib

# step: inspect the standards and the uncertainty column
head -5 standards.csv; head -3 field_samples.csv

# step[easy-to-miss]: weighted quadratic fit; np.polyfit weights the unsquared residuals, so w = 1/sigma (not 1/sigma^2)
python3 - <<'PY'
import json
import numpy as np
x, y, s = np.loadtxt("standards.csv", delimiter=",", skiprows=1).T
c2, c1, c0 = np.polyfit(x, y, 2, w=1.0 / s)
json.dump({"c0": float(c0), "c1": float(c1), "c2": float(c2)}, open("calibration.json", "w"), indent=2)
print(open("calibration.json").read())
PY

# step: invert the curve for every field reading inside the calibrated range
python3 - <<'PY'
import csv, json
import numpy as np
c = json.load(open("calibration.json"))
ref = np.loadtxt("standards.csv", delimiter=",", skiprows=1)[:, 0]
lo, hi = ref.min(), ref.max()
with open("field_samples.csv", newline="") as f, open("field_results.csv", "w", newline="") as g:
    w = csv.writer(g, lineterminator="\n")
    w.writerow(["sample_id", "concentration_ppm", "flag"])
    for r in csv.DictReader(f):
        roots = np.roots([c["c2"], c["c1"], c["c0"] - float(r["reading_mv"])])
        ok = [z.real for z in roots if abs(z.imag) < 1e-12 and lo <= z.real <= hi]
        w.writerow([r["sample_id"], f"{ok[0]:.3f}" if ok else "", "ok" if ok else "out_of_range"])
PY
