#!/bin/bash
set -e
cd /app
mkdir -p payroll

# step: look at the export (unordered rows, night shifts ending after midnight, date range over new year)
head -5 data/timesheets.csv
cut -d, -f2 data/timesheets.csv | sort | sed -n '2p;$p'

# step: compute each shift's paid minutes (overnight wrap, 30 min break above 6 h)
python3 - <<'PY'
import csv
with open("data/timesheets.csv", newline="") as f, open("/tmp/shifts.tsv", "w") as out:
    for r in csv.DictReader(f):
        h1, m1 = map(int, r["clock_in"].split(":"))
        h2, m2 = map(int, r["clock_out"].split(":"))
        mins = (h2 * 60 + m2) - (h1 * 60 + m1)
        if mins <= 0:
            mins += 24 * 60
        if mins > 6 * 60:
            mins -= 30
        out.write(f"{r['employee']}\t{r['date']}\t{mins}\n")
PY

# step[easy-to-miss]: group by ISO week-numbering year and week (Dec 30 2024 is 2025-W01), add overtime, write the CSV
python3 - <<'PY'
import csv
from datetime import date
weeks = {}
for line in open("/tmp/shifts.tsv"):
    emp, d, mins = line.rstrip("\n").split("\t")
    y, w, _ = date.fromisoformat(d).isocalendar()
    key = (emp, f"{y}-W{w:02d}")
    weeks[key] = weeks.get(key, 0) + int(mins)
with open("payroll/weekly_hours.csv", "w", newline="") as f:
    wr = csv.writer(f, lineterminator="\n")
    wr.writerow(["employee", "iso_week", "hours", "overtime_hours"])
    for (emp, wk), mins in sorted(weeks.items()):
        wr.writerow([emp, wk, f"{mins / 60:.2f}", f"{max(0, mins - 40 * 60) / 60:.2f}"])
PY
