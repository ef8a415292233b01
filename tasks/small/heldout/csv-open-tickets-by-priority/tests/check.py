import sys
WANT = ['high: 5', 'medium: 3', 'urgent: 2', 'low: 1']
try:
    got = [l.strip() for l in open("/app/support/priority_counts.txt").read().splitlines() if l.strip()]
except OSError as e:
    sys.exit(f"FAIL: priority_counts.txt: {e}")
if got != WANT:
    sys.exit(f"FAIL: expected {WANT}, got {got}")
print("ok")
