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

R = "/app/gadget"
orig = original("gadget")
BUILD = {'build/main.o': 'fake object\n', 'build/gadget': 'fake binary\n'}
if git(R, "rev-parse", "main^", ok=True) != git(orig, "rev-parse", "main"):
    fail("main must be the old history plus exactly one new commit")
if git(R, "log", "-1", "--format=%B", "main") != "Stop tracking build output":
    fail("commit message must be 'Stop tracking build output'")
want = {p: h for p, h in tree(orig, "main").items() if not p.startswith("build/")}
got = tree(R, "main")
ignore = got.pop(".gitignore", None)
if got != want:
    fail(f"the commit must remove build/ and keep everything else: {sorted(got)}")
if ignore is None or not {"build/", "/build/", "build", "/build"} & set(git(R, "show", "main:.gitignore").split()):
    fail(".gitignore with the line build/ not committed")
for p, text in BUILD.items():
    try:
        if open(os.path.join(R, p)).read() != text:
            fail(f"{p} changed on disk")
    except OSError:
        fail(f"{p} was deleted from disk")
if git(R, "status", "--porcelain", "--untracked-files=all"):
    fail("git status is not clean")
print("ok")
