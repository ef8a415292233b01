import csv, json, sys, hashlib
from pathlib import Path

def fail(msg):
    print("FAIL:", msg); sys.exit(1)

out = Path("/app/out/contacts_dedup.csv")
if not out.is_file(): fail("missing /app/out/contacts_dedup.csv")
with open(out, newline="") as f:
    got = list(csv.reader(f))
with open("/tests/expected_contacts.csv", newline="") as f:
    exp = list(csv.reader(f))
if not got or got[0] != exp[0]: fail(f"bad header {got[:1]}")
got_rows = [r for r in got[1:] if r]
if len(got_rows) != len(exp) - 1:
    fail(f"expected {len(exp)-1} contacts, got {len(got_rows)}")
for g, e in zip(got_rows, exp[1:]):
    if g != e: fail(f"row mismatch: got {g} expected {e}")

s = Path("/app/out/dedup_summary.json")
if not s.is_file(): fail("missing dedup_summary.json")
try:
    summary = json.loads(s.read_text())
except Exception as e:
    fail(f"summary not JSON: {e}")
want = {"input_rows": 330, "output_rows": len(exp) - 1, "removed": 330 - (len(exp) - 1)}
for k, v in want.items():
    if summary.get(k) != v: fail(f"summary {k}={summary.get(k)!r}, expected {v}")

if hashlib.sha256(Path("/app/data/contacts.csv").read_bytes()).hexdigest() != \
        hashlib.sha256(Path("/tests/contacts_orig.csv").read_bytes()).hexdigest():
    fail("input file was modified")
print("all checks passed")
