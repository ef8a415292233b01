import os, sys
def fail(msg):
    print("FAIL:", msg)
    sys.exit(1)

WANT = ['abanda', 'asadeghi', 'bcosta', 'cwei', 'dricci', 'hito']
try:
    got = [l.strip() for l in open("/app/premium_users.txt").read().splitlines() if l.strip()]
except OSError as e:
    fail(f"/app/premium_users.txt: {e}")
if got != WANT:
    fail(f"expected {WANT}, got {got}")
print("ok")
