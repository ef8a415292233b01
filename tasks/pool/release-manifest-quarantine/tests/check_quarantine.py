import hashlib, os, sys

fails = []
hashes = {}
for line in open("/tests/hashes.txt"):
    h, _, p = line.rstrip("\n").partition("  ")
    hashes[p] = h

def sha(p):
    return hashlib.sha256(open(p, "rb").read()).hexdigest()

try:
    got = [l.rstrip("\n") for l in open("/app/verify-report.txt") if l.strip()]
    exp = [l.rstrip("\n") for l in open("/tests/expected_report.txt") if l.strip()]
    if got != exp:
        fails.append("verify-report.txt differs:\n  got: " + " | ".join(got) + "\n  exp: " + " | ".join(exp))
except Exception as e:
    fails.append(f"report: {e!r}")

for p in ("install.sh", "lib/libshop.so.1", "config/shop.yaml.orig", "lib/.preload.so"):
    q = os.path.join("/app/quarantine", p)
    if not os.path.isfile(q) or sha(q) != hashes[p]:
        fails.append(f"{p} not quarantined intact at {q}")
    if os.path.lexists(os.path.join("/app/release", p)):
        fails.append(f"{p} still in /app/release")
for p in ("VERSION", "bin/shopctl", "docs/release notes.txt", "SHA256SUMS"):
    r = os.path.join("/app/release", p)
    if not os.path.isfile(r) or sha(r) != hashes[p]:
        fails.append(f"{p} should stay untouched in /app/release")
    if os.path.lexists(os.path.join("/app/quarantine", p)):
        fails.append(f"{p} wrongly quarantined")
present = sorted(os.path.relpath(os.path.join(d, f), "/app/release") for d, _, fs in os.walk("/app/release") for f in fs)
want = sorted(["SHA256SUMS", "VERSION", "bin/shop-migrate", "bin/shopctl", "config/logging.yaml", "config/shop.yaml",
               "docs/README.md", "docs/release notes.txt"])
if present != want:
    fails.append(f"files left in /app/release: {present}")
for f in fails:
    print("FAIL:", f)
sys.exit(1 if fails else 0)
