import os
import shutil
import subprocess
import sys

REPO = "/app/logship"
ORIG = "/tmp/verifier_orig_logship"
SNAP = "/tmp/verifier_snapshot_logship"


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
fix = git(ORIG, "log", "main", "--format=%H", "--grep=LOG-231").split()
assert len(fix) == 1
fix = fix[0]
orig_maint = git(ORIG, "rev-parse", "maint/1.x").strip()

if git(REPO, "rev-parse", "main").strip() != git(ORIG, "rev-parse", "main").strip():
    fail("main was changed")
if os.path.exists(os.path.join(REPO, ".git/CHERRY_PICK_HEAD")) or os.path.exists(os.path.join(REPO, ".git/sequencer")):
    fail("a cherry-pick is still in progress")
if git(REPO, "status", "--porcelain").strip():
    fail("working tree not clean")

tip = git(REPO, "rev-parse", "maint/1.x").strip()
if git(REPO, "rev-parse", f"{tip}^@").split() != [orig_maint]:
    fail("maint/1.x must have exactly one new (non-merge) commit on top of its old tip")

fmt = "%an%x00%ae%x00%ad"
if git(REPO, "log", "-1", f"--format={fmt}", "--date=raw", tip) != git(ORIG, "log", "-1", f"--format={fmt}", "--date=raw", fix):
    fail("the backport does not keep the original author")
orig_msg = git(ORIG, "log", "-1", "--format=%B", fix).strip()
msg = git(REPO, "log", "-1", "--format=%B", tip).strip()
if not msg.startswith(orig_msg):
    fail("the original commit message was not kept")
lines = msg.splitlines()
if lines[-1].strip() != f"(cherry picked from commit {fix})":
    fail("missing '(cherry picked from commit <full hash>)' line")
if msg.count("cherry picked from") != 1:
    fail("odd cherry-pick trailer")

changed = sorted(git(REPO, "diff", "--name-only", orig_maint, tip).split())
if changed != ["logship/rotate.py", "tests/test_rotate.py"]:
    fail(f"backport touches {changed}")

rotate = git(REPO, "show", f"{tip}:logship/rotate.py")
if "parse_index" in rotate or "compressed_name" in rotate:
    fail("main-only refactorings were brought into maint")
if "def _parse_suffix(" not in rotate:
    fail("maint's _parse_suffix helper is gone")
tests = git(REPO, "show", f"{tip}:tests/test_rotate.py")
if "test_next_index_after_existing" not in tests or "_parse_suffix" not in tests:
    fail("maint's tests plus the fix's test are expected in tests/test_rotate.py")

shutil.rmtree(SNAP, ignore_errors=True)
os.makedirs(SNAP)
archive = subprocess.run(["git", "-C", REPO, "archive", tip], capture_output=True, check=True).stdout
subprocess.run(["tar", "-x", "-C", SNAP], input=archive, check=True)
r = subprocess.run([sys.executable, "-m", "unittest", "discover", "-s", "tests", "-v"], cwd=SNAP,
                   capture_output=True, text=True, timeout=60)
if r.returncode or "test_next_index_after_existing" not in r.stderr:
    fail("maint test suite fails on the backport:\n" + r.stderr[-1500:])
sys.path.insert(0, SNAP)
from logship.rotate import next_index, plan_rotation  # noqa: E402

if next_index(["app.log", "app.log.1", "app.log.2"], "app.log") != 3 or next_index(["x.log.7"], "x.log") != 8:
    fail("next_index still wrong")
if next_index([], "app.log") != 1:
    fail("next_index wrong for no rotated files")
if plan_rotation(["app.log", "app.log.1"], "app.log", keep=3) != [("app.log.1", "app.log.2"), ("app.log", "app.log.1")]:
    fail("plan_rotation changed")
print("all checks passed")
