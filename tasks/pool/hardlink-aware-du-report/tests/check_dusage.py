import json, os, subprocess, sys, tempfile

fails = []

def run(d):
    r = subprocess.run(["python3", "/app/dusage.py", d], capture_output=True, text=True, timeout=60)
    if r.returncode != 0:
        raise RuntimeError(f"exit {r.returncode}: {r.stderr[-300:]}")
    return json.loads(r.stdout)

def same(label, got, exp):
    g = {"total_bytes": got.get("total_bytes"), "unique_files": got.get("unique_files"), "dirs": got.get("dirs")}
    if g != exp:
        fails.append(f"{label}: got {g}\n      expected {exp}")

# expected for /app/backups (fixed by the environment build)
EXP_BACKUPS = {
    "total_bytes": 196440,
    "unique_files": 10,
    "dirs": {"daily.0": 1800 + 970 + 47104 + 24000 + 7400 + 5200, "daily.1": 45056 + 23000, "daily.2": 950 + 40960, "daily.3": 0},
}
try:
    same("/app/usage.json", json.load(open("/app/usage.json")), EXP_BACKUPS)
except Exception as e:
    fails.append(f"/app/usage.json: {e!r}")

# fresh fixture
t = tempfile.mkdtemp(prefix="du")
outside = tempfile.mkdtemp(prefix="out")
def w(p, n, ch="x"):
    os.makedirs(os.path.dirname(p), exist_ok=True)
    open(p, "w").write(ch * n)
w(f"{t}/top.bin", 100)
w(f"{t}/zeta/a.txt", 1000)
w(f"{t}/zeta/deep/b.txt", 2000)
os.makedirs(f"{t}/alpha/sub")
os.link(f"{t}/zeta/a.txt", f"{t}/alpha/a-link.txt")
os.link(f"{t}/top.bin", f"{t}/alpha/top-link.bin")
w(f"{t}/alpha/own.txt", 300)
os.link(f"{t}/alpha/own.txt", f"{t}/alpha/sub/own-again.txt")
w(f"{outside}/huge.dat", 50000)
os.symlink(f"{outside}/huge.dat", f"{t}/alpha/huge-link.dat")
os.symlink(f"{t}/zeta/deep/b.txt", f"{t}/alpha/b-link.txt")
os.symlink(outside, f"{t}/alpha/outside-dir")
os.symlink(f"{t}/zeta", f"{t}/link-to-zeta")
os.makedirs(f"{t}/empty")
w(f"{t}/middle/m.txt", 77)
os.link(f"{t}/zeta/deep/b.txt", f"{t}/middle/b-hard.txt")
exp = {"total_bytes": 100 + 1000 + 2000 + 300 + 77, "unique_files": 5,
       "dirs": {".": 100, "alpha": 1000 + 300, "empty": 0, "middle": 77 + 2000, "zeta": 0}}
try:
    same("fixture", run(t), exp)
except Exception as e:
    fails.append(f"fixture: {e!r}")

for f in fails:
    print("FAIL:", f)
sys.exit(1 if fails else 0)
