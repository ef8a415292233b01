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

R = "/app/widget"
orig = original("widget")
want = git(orig, "log", "--format=%H", "--grep=^Bump version to 1.2.0$", "main")
if git(R, "rev-parse", "main") != git(orig, "rev-parse", "main"):
    fail("main was changed")
kind = git(R, "cat-file", "-t", "refs/tags/v1.2.0", ok=True)
if kind is None:
    fail("no tag v1.2.0")
if kind != "tag":
    fail("v1.2.0 is a lightweight tag; it must be annotated")
if git(R, "rev-parse", "v1.2.0^{commit}") != want:
    fail("v1.2.0 does not point at the 'Bump version to 1.2.0' commit")
body = git(R, "cat-file", "tag", "refs/tags/v1.2.0").split("\n\n", 1)
if len(body) < 2 or body[1].strip() != "Release 1.2.0":
    fail("tag message must be 'Release 1.2.0'")
print("ok")
