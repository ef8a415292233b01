import os, sys
def fail(msg):
    print("FAIL:", msg)
    sys.exit(1)

import sqlite3
WANT = [['BR-1001', 'hex bolt M8', 420], ['BR-1002', 'hex nut M8', 1310], ['WS-2040', 'washer 8 mm', 2250], ['SC-3300', 'wood screw 4x40', 975], ['HG-0501', 'door hinge', 36], ['BR-1003', 'hex bolt M10', 88], ['CL-7000', 'cable clip', 0]]
P = "/app/warehouse/parts.db"
if not os.path.isfile(P):
    fail(f"{P} missing")
try:
    con = sqlite3.connect(f"file:{P}?mode=ro", uri=True)
    cols = [r[1] for r in con.execute("PRAGMA table_info(parts)")]
    rows = [list(r) for r in con.execute("SELECT sku, name, qty FROM parts ORDER BY rowid")] if cols else []
    types = {r[0] for r in con.execute("SELECT typeof(qty) FROM parts")} if cols else set()
except sqlite3.Error as e:
    fail(f"cannot read the parts table: {e}")
if cols != ["sku", "name", "qty"]:
    fail(f"table parts must have the columns sku, name, qty; has {cols}")
if rows and rows[0][0] == "sku":
    fail("the CSV header was imported as a row")
if sorted(f"{r[0]},{r[1]},{r[2]}" for r in rows) != sorted(f"{r[0]},{r[1]},{r[2]}" for r in WANT):
    fail(f"expected the {len(WANT)} parts of the CSV, got {rows}")
if types != {"integer"}:
    fail(f"qty must be stored as integers, found types {sorted(types)}")
print("ok")
