import sys
WANT = 'oslo-blindern,2024-07-03,31.2'
try:
    got = [l.strip() for l in open("/app/weather/warmest.txt").read().splitlines() if l.strip()]
except OSError as e:
    sys.exit(f"FAIL: warmest.txt: {e}")
if got != [WANT]:
    sys.exit(f"FAIL: expected the single line {WANT!r}, got {got}")
print("ok")
