import os, sys
def fail(msg):
    print("FAIL:", msg)
    sys.exit(1)

import csv
WANT = [['member', 'open_loans'], ['Beatriz', '3'], ['Farah', '2'], ['Alma', '1'], ['Ken', '1'], ['Oskar', '1'], ['Teo', '1']]
try:
    rows = [[c.strip() for c in r] for r in csv.reader(open("/app/open_loans.csv", newline="")) if r]
except OSError as e:
    fail(f"/app/open_loans.csv: {e}")
if rows[:1] != WANT[:1]:
    fail(f"header must be member,open_loans, got {rows[:1]}")
if rows != WANT:
    fail(f"expected {WANT[1:]}, got {rows[1:]}")
print("ok")
