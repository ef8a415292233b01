import csv, json, sys
from pathlib import Path

def fail(msg):
    print("FAIL:", msg); sys.exit(1)

p = Path("/app/out/sessions.csv")
if not p.is_file(): fail("missing /app/out/sessions.csv")
got = [r for r in csv.reader(open(p, newline="")) if r]
exp = [r for r in csv.reader(open("/tests/expected_sessions.csv", newline="")) if r]
if got[:1] != exp[:1]: fail(f"bad header {got[:1]}")
if len(got) != len(exp): fail(f"expected {len(exp)-1} sessions, got {len(got)-1}")
for g, e in zip(got[1:], exp[1:]):
    if g != e: fail(f"session mismatch: got {g} expected {e}")

s = Path("/app/out/summary.json")
if not s.is_file(): fail("missing /app/out/summary.json")
try:
    summary = json.loads(s.read_text())
except Exception as e:
    fail(f"summary.json invalid: {e}")
want = json.loads(Path("/tests/expected_summary.json").read_text())
for k, v in want.items():
    if summary.get(k) != v: fail(f"summary {k}={summary.get(k)!r}, expected {v}")
print("all checks passed")
