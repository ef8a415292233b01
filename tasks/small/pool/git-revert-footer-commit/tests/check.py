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

R = "/app/site"
orig = original("site")
tip = git(orig, "rev-parse", "main")
bad = git(orig, "log", "--format=%H", "--grep=^Change footer color to red$", "main")
if git(R, "symbolic-ref", "--short", "HEAD", ok=True) != "main":
    fail("main is not checked out")
if git(R, "rev-parse", "main^", ok=True) != tip:
    fail("main must be the old history plus exactly one new commit")
if git(R, "rev-list", "--count", "--merges", "main^!") != "0":
    fail("the new commit is a merge")
want = tree(orig, tip)
want["style.css"] = tree(orig, bad + "^")["style.css"]
if tree(R, "main") != want:
    fail("the new commit must undo exactly the footer colour change")
if git(R, "status", "--porcelain"):
    fail("working tree not clean")
print("ok")
