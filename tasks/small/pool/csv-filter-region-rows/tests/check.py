import sys
WANT = ['order_id,region,product,units', 'SO-5301,north,kettle,3', 'SO-5306,north,toaster,7', 'SO-5307,north,kettle,18', 'SO-5312,north,toaster,5', 'SO-5313,north,kettle,16', 'SO-5318,north,toaster,3', 'SO-5319,north,kettle,14', 'SO-5324,north,toaster,18']
try:
    got = open("/app/north_sales.csv").read().splitlines()
except OSError as e:
    sys.exit(f"FAIL: /app/north_sales.csv: {e}")
got = [l.rstrip("\r") for l in got if l.strip()]
if not got or got[0] != WANT[0]:
    sys.exit(f"FAIL: first line must be the header {WANT[0]!r}, got {got[:1]}")
if got != WANT:
    sys.exit(f"FAIL: rows differ: expected {WANT[1:]}, got {got[1:]}")
print("ok")
