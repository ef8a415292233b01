import subprocess, sys

TOKEN = "dtk_live_4f9a1c7e2b8d6035e9f1a2b3c4d5e6f7"
REPO = "/app/repo"
fails = []

def git(*args, check=True):
    r = subprocess.run(["git", "-C", REPO, *args], capture_output=True, timeout=60)
    if check and r.returncode != 0:
        raise RuntimeError(f"git {' '.join(args)}: {r.stderr.decode(errors='replace')[-300:]}")
    return r.stdout.decode(errors="replace")

try:
    if open("/app/leaked_token.txt").read().strip() != TOKEN:
        fails.append("leaked_token.txt does not hold the token")
except Exception as e:
    fails.append(f"leaked_token.txt: {e!r}")

try:
    # 1. nothing in the object store contains the token
    data = subprocess.run(["git", "-C", REPO, "cat-file", "--batch-all-objects", "--batch"], capture_output=True, timeout=60).stdout
    if TOKEN.encode() in data:
        fails.append("token still present in the object database (reachable or not)")
    # also loose/plain files under .git and the worktree
    g = subprocess.run(["grep", "-rlF", TOKEN, REPO], capture_output=True, text=True)
    if g.stdout.strip():
        fails.append(f"token found in plain files: {g.stdout.split()}")
    # 2. refs
    refs = set(git("for-each-ref", "--format=%(refname)").split())
    for r in ("refs/heads/main", "refs/heads/feature/metrics", "refs/tags/v0.2"):
        if r not in refs:
            fails.append(f"{r} missing")
    if any(r.startswith("refs/original/") for r in refs):
        fails.append("backup refs under refs/original left behind")
    # 3. history shape preserved
    exp_main = ["README: document DEPLOY_TOKEN|Priya Raman|2024-01-18T10:00:00+00:00",
                "Read deploy token from the environment|Priya Raman|2024-01-17T10:00:00+00:00",
                "Add healthcheck|Priya Raman|2024-01-14T10:00:00+00:00",
                "Wire up deploy script|Priya Raman|2024-01-13T10:00:00+00:00",
                "Add config loader|Priya Raman|2024-01-12T10:00:00+00:00",
                "Initial commit|Priya Raman|2024-01-11T10:00:00+00:00"]
    got_main = git("log", "--format=%s|%an|%aI", "main").split("\n")[:-1]
    if got_main != exp_main:
        fails.append(f"main history changed: {got_main}")
    exp_feat = ["Document manual deploy|Priya Raman|2024-01-16T10:00:00+00:00",
                "Add metrics module|Priya Raman|2024-01-15T10:00:00+00:00"] + exp_main[2:]
    got_feat = git("log", "--format=%s|%an|%aI", "feature/metrics").split("\n")[:-1]
    if got_feat != exp_feat:
        fails.append(f"feature/metrics history changed: {got_feat}")
    if git("merge-base", "main", "feature/metrics").strip() != git("rev-parse", "main~2").strip():
        fails.append("feature/metrics no longer forks from main's 'Add healthcheck' commit")
    # 4. contents
    if git("rev-parse", "main^{tree}").strip() != "8177bd439f60337cabac60d471165ca751c123c4":
        fails.append("final tree of main changed")
    if git("cat-file", "-t", "v0.2").strip() != "tag":
        fails.append("v0.2 is no longer an annotated tag")
    if git("log", "-1", "--format=%s", "v0.2^{commit}").strip() != "Add healthcheck":
        fails.append("v0.2 does not point at 'Add healthcheck'")
    if git("rev-parse", "v0.2^{commit}").strip() != git("rev-parse", "main~2").strip():
        fails.append("v0.2 does not point at the rewritten commit on main")
    if git("show", "v0.2:config/settings.env") != "REGION=eu-west-1\nBUCKET=shop-frontend-assets\nDEPLOY_TOKEN=REDACTED\n":
        fails.append("config/settings.env at v0.2 not redacted as expected")
    exp_doc = ('# Deploying by hand\n\n    curl -H "Authorization: Bearer REDACTED" https://deploy.shipfast.example/v1/release\n\n'
               'Ask Priya before doing this.\n')
    if git("show", "feature/metrics:docs/DEPLOY.md") != exp_doc:
        fails.append("docs/DEPLOY.md on feature/metrics not redacted as expected")
    if "deploy.shipfast.example" not in git("show", "v0.2:deploy.sh"):
        fails.append("deploy.sh content changed")
    # 5. worktree
    if git("symbolic-ref", "HEAD").strip() != "refs/heads/main":
        fails.append("main is not checked out")
    if git("status", "--porcelain").strip():
        fails.append("working tree not clean")
except Exception as e:
    fails.append(f"git checks: {e!r}")

for f in fails:
    print("FAIL:", f)
sys.exit(1 if fails else 0)
