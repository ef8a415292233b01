import csv, io, json, sys
from pathlib import Path

def fail(msg):
    print("FAIL:", msg); sys.exit(1)

p = Path("/app/out/payroll.csv")
if not p.is_file(): fail("missing /app/out/payroll.csv")
raw = p.read_bytes()
if raw.startswith(b"\xef\xbb\xbf"): raw = raw[3:]
try:
    text = raw.decode("utf-8")
except UnicodeDecodeError as e:
    fail(f"payroll.csv is not valid UTF-8: {e}")
got = [r for r in csv.reader(io.StringIO(text, newline="")) if r]
exp = [r for r in csv.reader(open("/tests/expected_payroll.csv", encoding="utf-8", newline="")) if r]
if got[:1] != exp[:1]: fail(f"bad header {got[:1]}")
if len(got) != len(exp): fail(f"expected {len(exp)-1} data rows, got {len(got)-1}")
for i, (g, e) in enumerate(zip(got[1:], exp[1:]), start=1):
    if g != e: fail(f"row {i}: got {g} expected {e}")

c = Path("/app/out/control.json")
if not c.is_file(): fail("missing /app/out/control.json")
try:
    ctl = json.loads(c.read_text())
except Exception as e:
    fail(f"control.json invalid: {e}")
if ctl.get("records") != 140: fail(f"records={ctl.get('records')!r}")
gt = ctl.get("gross_total")
if str(gt) != "722726.21": fail(f"gross_total={gt!r}, expected '722726.21'")
if ctl.get("matches_trailer") is not True: fail("matches_trailer should be true")
print("all checks passed")
