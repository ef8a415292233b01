#!/bin/bash
set -e
cd /app
mkdir -p out

# step: read the layout and look at the raw bytes (CRLF records, Latin-1 names)
cat in/LAYOUT.txt
head -c 240 in/PAYROLL.DAT | xxd | head -8

# step[easy-to-miss]: decode the records as ISO-8859-1 and slice the detail fields into a UTF-8 CSV
python3 - <<'PY'
import csv
with open("in/PAYROLL.DAT", encoding="latin-1", newline="") as f:
    lines = [l.rstrip("\r\n") for l in f if l.strip()]
with open("out/payroll.csv", "w", encoding="utf-8", newline="") as f:
    w = csv.writer(f, lineterminator="\n")
    w.writerow(["employee_id", "last_name", "first_name", "dept", "pay_date", "gross", "hours"])
    for l in lines:
        if l[0] != "D":
            continue
        cents = int(l[56:67])
        neg = l[67] == "-"
        hours = int(l[68:73])
        d = l[48:56]
        w.writerow([int(l[1:9]), l[9:29].strip(), l[29:44].strip(), l[44:48].strip(),
                    f"{d[:4]}-{d[4:6]}-{d[6:8]}",
                    f"{'-' if neg else ''}{cents // 100}.{cents % 100:02d}",
                    f"{hours // 10}.{hours % 10}"])
PY

# step: reconcile with the trailer record and write control.json
python3 - <<'PY'
import csv, json
from decimal import Decimal
rows = list(csv.DictReader(open("out/payroll.csv", encoding="utf-8", newline="")))
total = sum(Decimal(r["gross"]) for r in rows)
trailer = [l for l in open("in/PAYROLL.DAT", encoding="latin-1") if l.startswith("T")][0]
t_count = int(trailer[1:9])
t_cents = int(trailer[9:22]) * (-1 if trailer[22] == "-" else 1)
json.dump({"records": len(rows), "gross_total": f"{total:.2f}",
           "matches_trailer": len(rows) == t_count and int(total * 100) == t_cents},
          open("out/control.json", "w"), indent=2)
print(open("out/control.json").read())
PY
