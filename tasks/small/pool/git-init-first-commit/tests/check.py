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

R = "/app/recipes"
FILES = {'soup.md': '# Tomato soup\n\n- 1 kg tomatoes\n- 1 onion\n- salt\n', 'bread.md': '# Soda bread\n\n- 500 g flour\n- 400 ml buttermilk\n- 1 tsp baking soda\n', 'notes/ideas.txt': 'try a rye version of the soda bread\n', '.editorconfig': 'root = true\n\n[*.md]\nindent_style = space\n'}
if not os.path.isdir(R + "/.git"):
    fail("/app/recipes is not a git repository")
head = git(R, "symbolic-ref", "HEAD", ok=True)
if head != "refs/heads/main":
    fail(f"HEAD is {head}, expected the branch main")
if git(R, "rev-list", "--count", "HEAD") != "1":
    fail("expected exactly one commit")
if git(R, "log", "-1", "--format=%B") != "Initial import":
    fail("commit message must be 'Initial import'")
if git(R, "log", "-1", "--format=%an <%ae>") != "Dana Cook <dana.cook@kitchen.example>":
    fail("author must be Dana Cook <dana.cook@kitchen.example>")
files = set(git(R, "ls-tree", "-r", "--name-only", "HEAD").splitlines())
if files != set(FILES):
    fail(f"committed files {sorted(files)}, expected {sorted(FILES)}")
for p, text in FILES.items():
    if git(R, "show", f"HEAD:{p}") != text.strip():
        fail(f"{p} committed with different content")
if git(R, "status", "--porcelain", "--untracked-files=all"):
    fail("uncommitted changes left")
print("ok")
