import shutil
import subprocess
import sys

REPO = "/app/webshop"
ORIGIN = "/app/origin.git"
ORIG = "/tmp/verifier_orig_webshop"


def fail(msg):
    print("FAIL:", msg)
    sys.exit(1)


def git(repo, *args, ok=False):
    r = subprocess.run(["git", "-C", repo, *args], capture_output=True, text=True)
    if r.returncode and not ok:
        fail(f"git {' '.join(args)} in {repo}: {r.stderr.strip()}")
    return r.stdout.strip() if not r.returncode else None


shutil.rmtree(ORIG, ignore_errors=True)
subprocess.run(["mkdir", "-p", ORIG], check=True)
subprocess.run([sys.executable, "/tests/build_repo.py", ORIG], check=True, capture_output=True)
orig = ORIG + "/webshop"
orig_main = git(orig, "rev-parse", "main")
base = git(orig, "log", "--format=%H", "--grep=^Add CSV export (#212)$", "main")

# main untouched locally and on origin
if git(REPO, "rev-parse", "main") != orig_main:
    fail("local main changed")
if git(ORIGIN, "rev-parse", "refs/heads/main") != orig_main:
    fail("origin main changed")

tip = git(REPO, "rev-parse", "--verify", "-q", "refs/heads/release/2.4", ok=True)
if not tip:
    fail("no local branch release/2.4")
if git(REPO, "rev-parse", f"{tip}^@") != base:
    fail("release/2.4 must be exactly one commit on top of the #212 commit")
if git(REPO, "log", "-1", "--format=%B", tip) != "Release 2.4.0":
    fail("release commit message must be 'Release 2.4.0'")
changed = sorted(git(REPO, "diff", "--name-only", base, tip).splitlines())
if changed != ["CHANGELOG.md", "VERSION"]:
    fail(f"release commit changes {changed}")
if git(REPO, "show", f"{tip}:VERSION") != "2.4.0":
    fail("VERSION is not 2.4.0")
want_log = git(orig, "show", f"{base}:CHANGELOG.md").replace("## Unreleased", "## 2.4.0 - 2024-05-14", 1)
if git(REPO, "show", f"{tip}:CHANGELOG.md") != want_log:
    fail("CHANGELOG.md is not as expected")

# annotated tag
if git(REPO, "cat-file", "-t", "refs/tags/v2.4.0", ok=True) != "tag":
    fail("v2.4.0 missing or not an annotated tag")
if git(REPO, "rev-parse", "v2.4.0^{commit}") != tip:
    fail("v2.4.0 does not point at the release commit")
msg = git(REPO, "cat-file", "tag", "v2.4.0").split("\n\n", 1)[1].strip()
if msg != "webshop 2.4.0":
    fail(f"tag message is {msg!r}")

# published
if git(ORIGIN, "rev-parse", "-q", "--verify", "refs/heads/release/2.4", ok=True) != tip:
    fail("release/2.4 not pushed to origin")
if git(ORIGIN, "rev-parse", "-q", "--verify", "refs/tags/v2.4.0", ok=True) != git(REPO, "rev-parse", "refs/tags/v2.4.0"):
    fail("tag v2.4.0 not pushed to origin")
print("all checks passed")
