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

R = "/app/notes"
orig = original("notes")
if git(R, "rev-parse", "HEAD") != git(orig, "rev-parse", "HEAD"):
    fail("HEAD changed: nothing should be committed")
if git(R, "status", "--porcelain", "--untracked-files=all"):
    fail("working tree is not clean")
entries = git(R, "stash", "list", "--format=%gs").splitlines()
if len(entries) != 1:
    fail(f"expected exactly one stash entry, found {len(entries)}")
if not entries[0].endswith(": wip before pull"):
    fail(f"stash message is {entries[0]!r}, expected 'wip before pull'")
if git(R, "show", "stash@{0}:todo.txt", ok=True) != '- renew passport\n- call the plumber\n- book train to Lyon':
    fail("the stash does not hold the todo.txt edit")
if git(R, "show", "stash@{0}^3:draft.txt", ok=True) != 'Dear landlord,\nthe heating is broken again.':
    fail("the stash does not hold the untracked draft.txt")
print("ok")
