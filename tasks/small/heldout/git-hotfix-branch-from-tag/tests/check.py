import os, shutil, subprocess, sys, tempfile
def fail(msg):
    print("FAIL:", msg)
    sys.exit(1)
def git(repo, *args, ok=False):
    r = subprocess.run(["git", "-C", repo, *args], capture_output=True, text=True, timeout=20)
    if r.returncode:
        if ok:
            return None
        fail(f"git {' '.join(args)} in {repo}: {r.stderr.strip()}")
    return r.stdout.strip()
def original(repo):
    """A fresh build of the repository as it was before the agent ran."""
    tmp = tempfile.mkdtemp(prefix="orig-")
    subprocess.run(["bash", "/tests/build_repo.sh", tmp], check=True, capture_output=True)
    return os.path.join(tmp, repo)
def tree(repo, rev):
    out = {}
    for line in git(repo, "ls-tree", "-r", rev).splitlines():
        meta, path = line.split("\t", 1)
        out[path] = meta.split()[2]
    return out

R = "/app/billing"
orig = original("billing")
if git(R, "rev-parse", "main") != git(orig, "rev-parse", "main"):
    fail("main was changed")
tip = git(R, "rev-parse", "-q", "--verify", "refs/heads/hotfix/1.0.1", ok=True)
if not tip:
    fail("no branch hotfix/1.0.1")
if git(R, "rev-parse", tip + "^", ok=True) != git(orig, "rev-parse", "release-1.0.0^{commit}"):
    fail("hotfix/1.0.1 must be exactly one commit on top of release-1.0.0")
if git(R, "log", "-1", "--format=%B", tip) != "Patch 1.0.1":
    fail("commit message must be 'Patch 1.0.1'")
if git(R, "diff", "--name-only", tip + "^", tip).split() != ["VERSION"]:
    fail("the commit must change VERSION only")
if git(R, "show", tip + ":VERSION") != "1.0.1":
    fail("VERSION must be 1.0.1")
print("ok")
