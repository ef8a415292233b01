#!/bin/bash
set -e
cd /app/flow

# step: inspect the dump (interleaved meters, irregular timestamps)
head -5 readings.csv
cut -d, -f1 readings.csv | sort | uniq -c

# step[easy-to-miss]: group the readings per meter and sort each meter's readings by timestamp
python3 - <<'PY'
import csv, json
from datetime import datetime
series = {}
for r in csv.DictReader(open("readings.csv", newline="")):
    t = datetime.fromisoformat(r["timestamp"].replace("Z", "+00:00")).timestamp()
    series.setdefault(r["meter_id"], []).append((t, float(r["flow_lpm"])))
json.dump({m: sorted(v) for m, v in series.items()}, open("/tmp/series.json", "w"))
PY

# step: trapezoidal integration (L/min over seconds -> litres -> m3) and write the report
python3 - <<'PY'
import csv, json
import numpy as np
series = json.load(open("/tmp/series.json"))
with open("volumes.csv", "w", newline="") as f:
    w = csv.writer(f, lineterminator="\n")
    w.writerow(["meter_id", "hours", "volume_m3"])
    for m in sorted(series):
        t, q = np.array(series[m]).T
        litres = np.sum((t[1:] - t[:-1]) * (q[1:] + q[:-1]) / 2) / 60.0
        w.writerow([m, f"{(t[-1] - t[0]) / 3600:.3f}", f"{litres / 1000:.4f}"])
PY
cat volumes.csv
