#!/bin/bash
set -e
cd /app/hr
# step: look at both files
head -3 employees.csv departments.csv
# step[easy-to-miss]: join on dept_id, keeping employees without a known department as unassigned
python3 - <<'PY'
import csv
names = {r["dept_id"]: r["dept_name"] for r in csv.DictReader(open("departments.csv"))}
with open("roster.csv", "w", newline="") as out:
    w = csv.writer(out, lineterminator="\n")
    w.writerow(["name", "dept_name"])
    for r in csv.DictReader(open("employees.csv")):
        w.writerow([r["name"], names.get(r["dept_id"], "unassigned")])
PY
cat roster.csv
