import os, sys
def fail(msg):
    print("FAIL:", msg)
    sys.exit(1)

WANT = '[shop]\ncurrency = EUR\npage_size = 24\n'
P = "/app/restore/site/config/settings.ini"
try:
    if open(P).read() != WANT:
        fail(f"{P} differs from the backup")
except OSError as e:
    fail(f"{P}: {e}")
extra = []
for root, dirs, files in os.walk("/app/restore"):
    extra += [os.path.join(root, f) for f in files if os.path.join(root, f) != P]
if extra:
    fail(f"other files were extracted too: {sorted(extra)}")
print("ok")
