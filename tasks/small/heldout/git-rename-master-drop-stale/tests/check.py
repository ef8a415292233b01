import os, subprocess, sys, tempfile

FAILS = []
R = "/app/storefront"


def fail(msg):
    FAILS.append(msg)


def git(repo, *args):
    """git's output, or None when the command fails."""
    r = subprocess.run(["git", "-c", f"safe.directory={repo}", "-C", repo, *args],
                       capture_output=True, text=True, timeout=20)
    return r.stdout.strip() if r.returncode == 0 else None


def branch(repo, name):
    return git(repo, "rev-parse", "-q", "--verify", f"refs/heads/{name}^{{commit}}")


def finish():
    for m in FAILS:
        print("FAIL:", m)
    if FAILS:
        sys.exit(1)
    print("all checks passed")


tmp = tempfile.mkdtemp(prefix="orig-")
subprocess.run(["bash", "/tests/build_repo.sh", tmp], check=True, capture_output=True, timeout=30)
orig = os.path.join(tmp, "storefront")

if not os.path.isdir(os.path.join(R, ".git")):
    fail(f"{R} is no longer a git repository")
else:
    main = branch(R, "main")
    if main is None:
        fail("there is no branch main")
    elif main != branch(orig, "master"):
        fail("main must point at the commit master pointed at")
    if branch(R, "master") is not None:
        fail("the branch master still exists")
    if branch(R, "old-experiment") is not None:
        fail("the branch old-experiment still exists")
    if branch(R, "feature/search") != branch(orig, "feature/search"):
        fail("feature/search was changed or deleted")
    if git(R, "symbolic-ref", "HEAD") != "refs/heads/main":
        fail("main is not the checked-out branch")
    if git(R, "status", "--porcelain"):
        fail("the working tree has uncommitted changes")
finish()
