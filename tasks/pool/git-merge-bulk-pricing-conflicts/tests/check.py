import os
import shutil
import subprocess
import sys
from decimal import Decimal

REPO = "/app/catalog-service"
ORIG = "/tmp/verifier_orig_catalog"
SNAP = "/tmp/verifier_snapshot_catalog"
sys.path.insert(0, "/tests")


def fail(msg):
    print("FAIL:", msg)
    sys.exit(1)


def git(repo, *args):
    r = subprocess.run(["git", "-C", repo, *args], capture_output=True, text=True)
    if r.returncode:
        fail(f"git {' '.join(args)} in {repo}: {r.stderr.strip()}")
    return r.stdout


shutil.rmtree(ORIG, ignore_errors=True)
subprocess.run([sys.executable, "/tests/build_repo.py", ORIG], check=True, capture_output=True)
import build_repo as B  # noqa: E402  (definitions only; building runs under __main__)

orig_main = git(ORIG, "rev-parse", "main").strip()
feat = git(ORIG, "rev-parse", "feature/bulk-pricing").strip()

if git(REPO, "rev-parse", "feature/bulk-pricing").strip() != feat:
    fail("feature/bulk-pricing was changed")
if git(REPO, "symbolic-ref", "HEAD").strip() != "refs/heads/main":
    fail("main is not checked out")
head = git(REPO, "rev-parse", "main").strip()
parents = git(REPO, "rev-parse", f"{head}^@").split()
if parents != [orig_main, feat]:
    fail(f"main tip is not a merge of the old main tip and the feature tip: parents={parents}")
subject = git(REPO, "log", "-1", "--format=%s", head).strip()
if subject != "Merge branch 'feature/bulk-pricing'":
    fail(f"unexpected merge message {subject!r}")
if git(REPO, "status", "--porcelain").strip():
    fail("working tree not clean")


def show(path):
    return git(REPO, "show", f"{head}:{path}")


for path in git(REPO, "ls-tree", "-r", "--name-only", head).split():
    text = show(path)
    if any(m in text for m in ("<<<<<<<", ">>>>>>>", "\n=======\n")):
        fail(f"conflict markers left in {path}")

if show("catalog/pricing.py") != B.PRICING_FEAT:
    fail("catalog/pricing.py should be the feature branch's version")
if show("config/defaults.ini") != B.CONFIG_BASE.replace("timeout = 20", "timeout = 30") + B.FEED:
    fail("config/defaults.ini not resolved as required")
if show("CHANGELOG.md") != B.changelog(["HTTP timeout raised to 30 s", "Invoice lines",
                                        "Bulk pricing tiers", "Price feed timeout 45 s"]):
    fail("CHANGELOG.md not resolved as required")
for t in ("tests/test_orders.py", "tests/test_pricing.py"):
    want = git(ORIG, "show", f"{'main' if 'orders' in t else 'feature/bulk-pricing'}:{t}")
    if show(t) != want:
        fail(f"{t} was edited")

# the committed tree must work
shutil.rmtree(SNAP, ignore_errors=True)
os.makedirs(SNAP)
archive = subprocess.run(["git", "-C", REPO, "archive", head], capture_output=True, check=True).stdout
subprocess.run(["tar", "-x", "-C", SNAP], input=archive, check=True)
r = subprocess.run([sys.executable, "-m", "unittest", "discover", "-s", "tests"], cwd=SNAP,
                   capture_output=True, text=True, timeout=60)
if r.returncode:
    fail("test suite fails at the merge commit:\n" + r.stderr[-1500:])
sys.path.insert(0, SNAP)
from catalog.orders import invoice_lines, order_total  # noqa: E402

for lines, pct in [([("10.00", 25), ("3.20", 150), ("1.00", 2)], 5),
                   ([("2.50", 4), ("1.00", 1)], 10),
                   ([("99.99", 100), ("0.10", 19), ("7.77", 20)], 0)]:
    rows = invoice_lines(lines, pct)
    if sum(r[2] for r in rows) != order_total(lines, pct):
        fail(f"invoice_lines disagrees with order_total for {lines}")
    if [r[0] for r in rows] != [q for _, q in lines]:
        fail("invoice_lines rows changed shape")
if invoice_lines([("10.00", 25)], 0) != [(25, Decimal("9.50"), Decimal("237.50"))]:
    fail("bulk tier not applied in invoice_lines")
print("all checks passed")
