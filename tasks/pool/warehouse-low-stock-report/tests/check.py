import json, sys
from pathlib import Path

def fail(msg):
    print("FAIL:", msg); sys.exit(1)

p = Path("/app/reports/low_stock.json")
if not p.is_file(): fail("missing /app/reports/low_stock.json")
try:
    got = json.loads(p.read_text())
except Exception as e:
    fail(f"not valid JSON: {e}")
exp = json.loads(Path("/tests/expected_low_stock.json").read_text())
if not isinstance(got, list): fail("top level must be an array")
for o in got:
    if not isinstance(o, dict) or set(o) != {"sku", "name", "available", "reorder_level"}:
        fail(f"bad object keys: {o}")
got_skus = [o["sku"] for o in got]
exp_skus = [o["sku"] for o in exp]
if set(got_skus) != set(exp_skus):
    fail(f"wrong products: extra={sorted(set(got_skus)-set(exp_skus))} missing={sorted(set(exp_skus)-set(got_skus))}")
if got_skus != exp_skus: fail("not sorted by sku")
for g, e in zip(got, exp):
    if g != e: fail(f"mismatch: got {g} expected {e}")
print("all checks passed")
