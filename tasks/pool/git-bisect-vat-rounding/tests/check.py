import os
import re
import subprocess
import sys

REPO = "/app/shopcart"
BAD_SUBJECT = "Use built-in round() for VAT amounts"
TIP_SUBJECT = "README: release process"


def git(*args, check=True):
    r = subprocess.run(["git", "-C", REPO, *args], capture_output=True, text=True)
    if check and r.returncode:
        raise SystemExit(f"git {args} failed: {r.stderr}")
    return r


def fail(msg):
    print("FAIL:", msg)
    sys.exit(1)


log = git("log", "main", "--format=%H%x09%s").stdout.splitlines()
by_subject = {}
for line in log:
    h, s = line.split("\t", 1)
    by_subject.setdefault(s, []).append(h)
if len(log) != 30 or by_subject.get(TIP_SUBJECT, [None])[0] != log[0].split("\t")[0]:
    fail("history of main was changed")
expected = by_subject[BAD_SUBJECT][0]

path = "/app/first_bad_commit.txt"
if not os.path.isfile(path):
    fail("no /app/first_bad_commit.txt")
content = open(path).read().strip()
if not re.fullmatch(r"[0-9a-f]{40}", content):
    fail(f"not a full commit hash: {content!r}")
if content != expected:
    fail(f"wrong commit {content}")

gitdir = os.path.join(REPO, ".git")
for f in ("BISECT_START", "BISECT_LOG", "BISECT_TERMS"):
    if os.path.exists(os.path.join(gitdir, f)):
        fail("a bisect session is still in progress")
if git("for-each-ref", "refs/bisect").stdout.strip():
    fail("bisect refs left behind")
head = git("symbolic-ref", "-q", "HEAD", check=False).stdout.strip()
if head != "refs/heads/main":
    fail(f"HEAD is not on main ({head or 'detached'})")
if git("status", "--porcelain", "--untracked-files=no").stdout.strip():
    fail("tracked files are modified")
if git("rev-parse", "v1.4.0^{commit}").stdout.strip() != by_subject["Add .gitignore"][0]:
    fail("tag v1.4.0 moved")
print("all checks passed")
