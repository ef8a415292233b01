#!/bin/bash
set -e
cd /app

# step: inspect the export (header, quoting, how duplicates look)
head -5 data/contacts.csv
mkdir -p out

# step[easy-to-miss]: group rows by the trimmed, lower-cased email and keep the latest updated_at
python3 - <<'PY'
import csv
with open("data/contacts.csv", newline="") as f:
    rows = list(csv.DictReader(f))
best = {}
for r in rows:
    key = r["email"].strip().lower()
    if key not in best or r["updated_at"] > best[key]["updated_at"]:
        best[key] = r
out = sorted(best.values(), key=lambda r: int(r["id"]))
with open("out/contacts_dedup.csv", "w", newline="") as f:
    w = csv.DictWriter(f, fieldnames=["id", "name", "email", "phone", "updated_at"])
    w.writeheader()
    for r in out:
        r = dict(r, email=r["email"].strip().lower())
        w.writerow(r)
PY

# step: write the summary counts
python3 - <<'PY'
import csv, json
n_in = sum(1 for _ in csv.DictReader(open("data/contacts.csv", newline="")))
n_out = sum(1 for _ in csv.DictReader(open("out/contacts_dedup.csv", newline="")))
json.dump({"input_rows": n_in, "output_rows": n_out, "removed": n_in - n_out},
          open("out/dedup_summary.json", "w"), indent=2)
PY
