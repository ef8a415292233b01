#!/bin/bash
set -e
cd /app
mkdir -p reports

# step: look at the export: preamble lines, header, German number format
head -8 data/umsaetze_2024.csv
grep -n '^"Buchungstag"' data/umsaetze_2024.csv

# step[easy-to-miss]: parse the bookings after the header, converting amounts like 3.875,40 (thousands dot, decimal comma)
python3 - <<'PY'
import csv
lines = open("data/umsaetze_2024.csv", encoding="utf-8").read().splitlines()
start = next(i for i, l in enumerate(lines) if l.startswith('"Buchungstag"'))
with open("/tmp/bookings.tsv", "w") as out:
    for r in csv.DictReader(lines[start:], delimiter=";"):
        d = r["Buchungstag"]
        amount = r["Betrag"].replace(".", "").replace(",", ".")
        out.write(f"{d[6:10]}-{d[3:5]}\t{amount}\n")
PY

# step: aggregate per booking month and write the summary
python3 - <<'PY'
import csv
from decimal import Decimal
agg = {}
for line in open("/tmp/bookings.tsv"):
    month, amount = line.rstrip("\n").split("\t")
    a = Decimal(amount)
    x = agg.setdefault(month, [Decimal(0), Decimal(0), 0])
    if a > 0:
        x[0] += a
    else:
        x[1] -= a
    x[2] += 1
with open("reports/monthly_summary.csv", "w", newline="") as f:
    w = csv.writer(f, lineterminator="\n")
    w.writerow(["month", "income", "expenses", "net", "transactions"])
    for m in sorted(agg):
        i, e, n = agg[m]
        w.writerow([m, f"{i:.2f}", f"{e:.2f}", f"{i - e:.2f}", n])
PY
cat reports/monthly_summary.csv
