import os
import shutil
import subprocess
import sys

REPO = "/app/notes-api"
ORIGIN = "/app/origin.git"
ROOT = "/tmp/verifier_orig_notes"
SNAP = "/tmp/verifier_snap_notes"
SUBJECTS = ["Add Tag model", "Add tag endpoints", "Add tag search"]
sys.path.insert(0, "/tests")
import build_repo as B  # noqa: E402  (definitions only)


def fail(msg):
    print("FAIL:", msg)
    sys.exit(1)


def git(repo, *args, ok=False):
    r = subprocess.run(["git", "-C", repo, *args], capture_output=True, text=True)
    if r.returncode:
        if ok:
            return None
        fail(f"git {' '.join(args)} in {repo}: {r.stderr.strip()}")
    return r.stdout


shutil.rmtree(ROOT, ignore_errors=True)
os.makedirs(ROOT)
subprocess.run([sys.executable, "/tests/build_repo.py", ROOT], check=True, capture_output=True)
orig = ROOT + "/notes-api"
main_tip = git(orig, "rev-parse", "main").strip()
old_tip = git(orig, "rev-parse", "feature/tags").strip()

if git(REPO, "rev-parse", "main").strip() != main_tip:
    fail("local main changed")
if git(ORIGIN, "rev-parse", "refs/heads/main").strip() != main_tip:
    fail("origin main changed")
backup = git(REPO, "rev-parse", "-q", "--verify", "refs/heads/backup/feature-tags", ok=True)
if not backup or backup.strip() != old_tip:
    fail("backup/feature-tags must point at the old feature/tags tip")
gitdir = REPO + "/.git"
if os.path.exists(gitdir + "/rebase-merge") or os.path.exists(gitdir + "/rebase-apply"):
    fail("a rebase is still in progress")
if git(REPO, "status", "--porcelain").strip():
    fail("working tree not clean")

tip = git(REPO, "rev-parse", "feature/tags").strip()
if git(REPO, "merge-base", tip, main_tip).strip() != main_tip:
    fail("feature/tags is not based on the current main")
commits = git(REPO, "rev-list", "--reverse", f"{main_tip}..{tip}").split()
if len(commits) != 3:
    fail(f"expected 3 commits on top of main, found {len(commits)}")
if git(REPO, "rev-list", "--merges", f"{main_tip}..{tip}").strip():
    fail("merge commits left")
if git(REPO, "rev-parse", f"{commits[0]}^").strip() != main_tip:
    fail("series does not start at main")

orig_dates = {}
for line in git(orig, "log", "--format=%s%x00%an%x00%ae%x00%ad", "--date=raw", old_tip).splitlines():
    s, an, ae, ad = line.split("\0")
    orig_dates.setdefault(s, (an, ae, ad))
for c, subject in zip(commits, SUBJECTS):
    s, an, ae, ad = git(REPO, "log", "-1", "--format=%s%x00%an%x00%ae%x00%ad", "--date=raw", c).strip().split("\0")
    if s != subject:
        fail(f"unexpected commit {s!r}, expected {subject!r}")
    if (an, ae, ad) != orig_dates[subject]:
        fail(f"author/author date of {subject!r} not kept")
    if git(REPO, "log", "-1", "--format=%B", c).strip() != subject:
        fail(f"message of {subject!r} changed")


def tree(repo, rev):
    out = {}
    for line in git(repo, "ls-tree", "-r", rev).splitlines():
        meta, path = line.split("\t", 1)
        out[path] = meta.split()[2]
    return out


def blob(repo, rev, path):
    return git(repo, "show", f"{rev}:{path}")


main_tree, old_tree = tree(orig, main_tip), tree(orig, old_tip)
want1 = dict(main_tree)
for p in ("notes/tags.py", "tests/test_tags.py"):
    want1[p] = old_tree[p]
want2 = dict(want1)
want2["tests/test_routes.py"] = old_tree["tests/test_routes.py"]
want3 = dict(old_tree)
want3["notes/__init__.py"] = main_tree["notes/__init__.py"]

got1, got2, got3 = (tree(REPO, c) for c in commits)
routes2 = blob(REPO, commits[1], "notes/routes.py")
want_routes2 = B.routes(B.ARCHIVE, B.TAG_ROUTES_FIXED)
if got1 != want1:
    fail("'Add Tag model' does not contain exactly main + the (fixed) Tag model")
if routes2 != want_routes2 or {k: v for k, v in got2.items() if k != "notes/routes.py"} != \
        {k: v for k, v in want2.items() if k != "notes/routes.py"}:
    fail("'Add tag endpoints' does not contain exactly the endpoints change (with its fixup)")
if got3 != want3:
    fail("final content differs from the old branch combined with main")

for c, subject in zip(commits, SUBJECTS):
    shutil.rmtree(SNAP, ignore_errors=True)
    os.makedirs(SNAP)
    data = subprocess.run(["git", "-C", REPO, "archive", c], capture_output=True, check=True).stdout
    subprocess.run(["tar", "-x", "-C", SNAP], input=data, check=True)
    r = subprocess.run([sys.executable, "-m", "unittest", "discover", "-s", "tests"], cwd=SNAP,
                       capture_output=True, text=True, timeout=60)
    if r.returncode:
        fail(f"tests fail at {subject!r}:\n{r.stderr[-1000:]}")

remote = git(ORIGIN, "rev-parse", "-q", "--verify", "refs/heads/feature/tags", ok=True)
if not remote or remote.strip() != tip:
    fail("origin's feature/tags was not updated")
print("all checks passed")
