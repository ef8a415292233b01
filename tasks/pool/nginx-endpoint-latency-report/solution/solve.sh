#!/bin/bash
set -e
cd /app
mkdir -p report

# step: look at the log format, including the malformed request lines
head -3 logs/access.log
grep -c '"-" 400' logs/access.log || true

# step[easy-to-miss]: extract method, path without query string, status and time in ms from valid lines
python3 - <<'PY'
import re
rx = re.compile(r'^\S+ \S+ \S+ \[[^\]]+\] "([A-Z]+) (\S+) HTTP/[\d.]+" (\d{3}) \d+ "[^"]*" "[^"]*" ([\d.]+)$')
with open("logs/access.log") as f, open("/tmp/requests.tsv", "w") as out:
    for line in f:
        m = rx.match(line.rstrip("\n"))
        if not m:
            continue
        method, target, status, rt = m.groups()
        path = target.split("?", 1)[0]
        out.write(f"{method}\t{path}\t{status}\t{round(float(rt) * 1000)}\n")
PY

# step: aggregate per endpoint (count, 5xx, nearest-rank p95) and write the sorted CSV
python3 - <<'PY'
import csv, math
agg = {}
for line in open("/tmp/requests.tsv"):
    method, path, status, ms = line.rstrip("\n").split("\t")
    a = agg.setdefault((method, path), [0, 0, []])
    a[0] += 1
    a[1] += int(status) >= 500
    a[2].append(int(ms))
rows = []
for (method, path), (n, errors, times) in agg.items():
    times.sort()
    rows.append((method, path, n, errors, times[math.ceil(0.95 * n) - 1]))
rows.sort(key=lambda r: (-r[2], r[0], r[1]))
with open("report/endpoints.csv", "w", newline="") as f:
    w = csv.writer(f, lineterminator="\n")
    w.writerow(["method", "path", "requests", "errors_5xx", "p95_ms"])
    w.writerows(rows)
PY
