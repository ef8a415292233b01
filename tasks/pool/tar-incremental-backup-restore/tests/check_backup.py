import os, shutil, stat, subprocess, sys, tempfile, time

fails = []

def tree(root, skip_excluded=False):
    out = {}
    for dp, dns, fns in os.walk(root):
        if skip_excluded:
            dns[:] = [d for d in dns if d != "cache"]
        for n in dns + fns:
            p = os.path.join(dp, n)
            rel = os.path.relpath(p, root)
            if skip_excluded and n.endswith(".tmp"):
                continue
            st = os.lstat(p)
            if stat.S_ISLNK(st.st_mode):
                out[rel] = ("link", os.readlink(p))
            elif stat.S_ISDIR(st.st_mode):
                out[rel] = ("dir", stat.S_IMODE(st.st_mode))
            else:
                out[rel] = ("file", stat.S_IMODE(st.st_mode), open(p, "rb").read())
    return out

def members(path):
    r = subprocess.run(["tar", "--list", "--gzip", "--file", path], capture_output=True, text=True, timeout=60)
    if r.returncode:
        raise RuntimeError(f"tar --list {path}: {r.stderr[-200:]}")
    return {os.path.normpath(l) for l in r.stdout.splitlines() if l.strip()}

def run(*args):
    return subprocess.run(list(args), capture_output=True, text=True, timeout=60)

# ---- the real first backup of /app/data
try:
    names = sorted(os.listdir("/app/backups"))
    if names != ["backup-000.tar.gz", "snapshot.snar"]:
        fails.append(f"/app/backups should hold exactly backup-000.tar.gz and snapshot.snar, has {names}")
    else:
        m = members("/app/backups/backup-000.tar.gz")
        for need in ("customers.csv", "reports/2024/q1.md", "uploads/contract-114.pdf", "latest-reports", "env.sh"):
            if need not in m:
                fails.append(f"backup-000 lacks {need}")
        if any(x.endswith(".tmp") or "cache" in x.split("/") for x in m):
            fails.append("backup-000 contains excluded *.tmp or cache/ entries")
except Exception as e:
    fails.append(f"/app/backups: {e!r}")

# ---- a fresh scenario with three backups
for s in ("/app/backup.sh", "/app/restore.sh"):
    if not os.access(s, os.X_OK):
        fails.append(f"{s} missing or not executable")
if not fails or all("backup-000" in f or "/app/backups" in f for f in fails):
    base = tempfile.mkdtemp(prefix="bk")
    src, dest, tgt = f"{base}/src", f"{base}/dest", f"{base}/restore/here"
    def w(rel, data, mode=0o644):
        p = os.path.join(src, rel)
        os.makedirs(os.path.dirname(p), exist_ok=True)
        open(p, "w").write(data)
        os.chmod(p, mode)
    w("keep/unchanged.bin", "U" * 5000)
    w("notes.txt", "v1\n")
    w("old/gone.txt", "to be deleted\n")
    w("old/sub/also-gone.txt", "deleted dir\n")
    w("rename/before.txt", "renamed later\n")
    w("secret/key.pem", "KEY\n", 0o600)
    w("work/draft.tmp", "scratch\n")
    w("cache/blob", "cached\n")
    w("deep/cache/x", "nested cache\n")
    os.symlink("notes.txt", f"{src}/notes-link")
    os.makedirs(f"{src}/empty-dir")
    try:
        r = run("/app/backup.sh", src, dest)
        if r.returncode:
            fails.append(f"backup 1 failed: {r.stderr[-300:]}")
        time.sleep(1.2)
        w("notes.txt", "v2\n")
        shutil.rmtree(f"{src}/old")
        os.rename(f"{src}/rename/before.txt", f"{src}/rename/after.txt")
        w("new/added.txt", "new file\n", 0o755)
        w("work/draft2.tmp", "scratch2\n")
        r = run("/app/backup.sh", src, dest)
        if r.returncode:
            fails.append(f"backup 2 failed: {r.stderr[-300:]}")
        time.sleep(1.2)
        os.remove(f"{src}/new/added.txt")
        w("notes.txt", "v3\n")
        os.remove(f"{src}/notes-link")
        os.symlink("rename/after.txt", f"{src}/notes-link")
        r = run("/app/backup.sh", src, dest)
        if r.returncode:
            fails.append(f"backup 3 failed: {r.stderr[-300:]}")
        arch = sorted(x for x in os.listdir(dest) if x.endswith(".tar.gz"))
        if arch != ["backup-000.tar.gz", "backup-001.tar.gz", "backup-002.tar.gz"]:
            fails.append(f"archives in DEST: {arch}")
        else:
            m0, m1, m2 = (members(f"{dest}/{a}") for a in arch)
            if "keep/unchanged.bin" not in m0:
                fails.append("full backup lacks keep/unchanged.bin")
            if "keep/unchanged.bin" in m1 or "keep/unchanged.bin" in m2:
                fails.append("incremental backups contain an unchanged file (not incremental)")
            if "new/added.txt" not in m1 or "notes.txt" not in m2:
                fails.append("incremental backups miss changed files")
            for mm in (m0, m1, m2):
                if any(x.endswith(".tmp") or "cache" in x.split("/") for x in mm):
                    fails.append("an archive contains *.tmp or cache/ entries"); break
        r = run("/app/restore.sh", dest, tgt)
        if r.returncode:
            fails.append(f"restore failed: {r.stderr[-300:]}")
        want, got = tree(src, skip_excluded=True), tree(tgt)
        if want != got:
            extra = sorted(set(got) - set(want))
            missing = sorted(set(want) - set(got))
            diff = sorted(k for k in set(want) & set(got) if want[k] != got[k])
            fails.append(f"restored tree differs: extra={extra} missing={missing} different={diff}")
    except Exception as e:
        fails.append(f"scenario: {e!r}")

for f in fails:
    print("FAIL:", f)
sys.exit(1 if fails else 0)
