import sys
try:
    got = open("/app/paid_total.txt").read()
except OSError as e:
    sys.exit(f"FAIL: /app/paid_total.txt: {e}")
if got.strip() != "5350.50":
    sys.exit(f"FAIL: expected 5350.50, got {got.strip()!r}")
print("ok")
