import csv, sqlite3, sys
from datetime import datetime, timezone
from pathlib import Path

def fail(msg):
    print("FAIL:", msg); sys.exit(1)

# independent reference computed from the pristine database
ref = sqlite3.connect("/tests/shop_orig.db")
cat = dict(ref.execute("SELECT id, category FROM products"))
orders = {oid: (ts, st) for oid, ts, st in ref.execute("SELECT id, created_at, status FROM orders")}
agg = {}
for oid, pid, qty, price in ref.execute("SELECT order_id, product_id, qty, unit_price_cents FROM order_items"):
    ts, st = orders[oid]
    if st == "cancelled":
        continue
    month = datetime.fromisoformat(ts).astimezone(timezone.utc).strftime("%Y-%m")
    a = agg.setdefault((month, cat[pid]), [set(), 0, 0])
    a[0].add(oid); a[1] += qty; a[2] += qty * price
expected = sorted((m, c, len(a[0]), a[1], a[2]) for (m, c), a in agg.items())

dbp = Path("/app/shop.db")
if not dbp.is_file(): fail("shop.db missing")
db = sqlite3.connect(dbp)
# data untouched
for t in ("products", "orders", "order_items"):
    try:
        got_rows = sorted(db.execute(f"SELECT * FROM {t}").fetchall())
    except Exception as e:
        fail(f"table {t}: {e}")
    if got_rows != sorted(ref.execute(f"SELECT * FROM {t}").fetchall()):
        fail(f"table {t} was modified")
row = db.execute("SELECT type FROM sqlite_master WHERE name='monthly_category_revenue'").fetchone()
if not row or row[0] != "view": fail("view monthly_category_revenue not found")
try:
    cur = db.execute("SELECT month, category, orders, units, revenue_cents FROM monthly_category_revenue")
    view_rows = sorted(tuple(r) for r in cur.fetchall())
except Exception as e:
    fail(f"querying the view failed: {e}")
if view_rows != expected:
    diff = sorted(set(view_rows) ^ set(expected))[:6]
    fail(f"view content differs from expected ({len(view_rows)} vs {len(expected)} rows), e.g. {diff}")

p = Path("/app/reports/monthly_revenue.csv")
if not p.is_file(): fail("missing /app/reports/monthly_revenue.csv")
with open(p, newline="") as f:
    rows = [r for r in csv.reader(f) if r]
if not rows or rows[0] != ["month", "category", "orders", "units", "revenue"]: fail(f"bad header {rows[:1]}")
want = [[m, c, str(o), str(u), f"{r // 100}.{r % 100:02d}"] for m, c, o, u, r in expected]
if rows[1:] != want:
    for g, w in zip(rows[1:], want):
        if g != w: fail(f"CSV row mismatch: got {g} expected {w}")
    fail(f"CSV has {len(rows)-1} rows, expected {len(want)}")
print("all checks passed")
