import os, sys
def fail(msg):
    print("FAIL:", msg)
    sys.exit(1)

WANT = ['photos/2023/beach.jpg', 'photos/2023/harbour.jpg', 'photos/2024/alps/hut.png', 'photos/2024/alps/summit.jpg', 'photos/2024/city.jpg', 'photos/index.txt']
try:
    got = [l.strip() for l in open("/app/incoming/photos.txt").read().splitlines() if l.strip()]
except OSError as e:
    fail(f"/app/incoming/photos.txt: {e}")
if got != WANT:
    fail(f"expected {WANT}, got {got}")
print("ok")
