import gzip, os, subprocess, sys, tempfile

fails = []
def check(cond, msg):
    if not cond:
        fails.append(msg)

def gz(path, text):
    with open(path, "wb") as f:
        f.write(gzip.compress(text.encode(), mtime=0))

def gunz(path):
    with open(path, "rb") as f:
        return gzip.decompress(f.read()).decode()

def archives(d, name):
    return sorted(f for f in os.listdir(d) if f.startswith(name + ".") and f.endswith(".gz") and f[len(name)+1:-3].isdigit())

script = "/app/rotate.sh"
if not os.path.isfile(script) or not os.access(script, os.X_OK):
    print("FAIL: /app/rotate.sh missing or not executable"); sys.exit(1)

# --- 1. the real /app/logs must have been rotated once ---
d = "/app/logs"
try:
    check(os.path.getsize(f"{d}/api.log") == 0, "/app/logs/api.log not truncated")
    a1 = gunz(f"{d}/api.log.1.gz")
    check(a1.startswith("2024-05-06T10:00:00Z api GET /v1/orders/1000 200") and a1.count("\n") == 12, "/app/logs/api.log.1.gz wrong content")
    check("gen3 line0" in gunz(f"{d}/api.log.4.gz"), "/app/logs/api.log.4.gz should hold old .3")
    check(not os.path.exists(f"{d}/api.log.5.gz"), "/app/logs/api.log.5.gz should be deleted")
    check("worker previous day" in gunz(f"{d}/worker.log.2.gz"), "/app/logs worker.log.2.gz wrong")
    check("job=7 done" in gunz(f"{d}/worker.log.1.gz"), "/app/logs worker.log.1.gz wrong")
    check(archives(d, "cache.log") == ["cache.log.1.gz", "cache.log.2.gz"], "/app/logs cache.log archives changed")
    check("2024-05-04T08" in gunz(f"{d}/cache.log.1.gz"), "/app/logs cache.log.1.gz shifted although cache.log was empty")
    check(open(f"{d}/README.txt").read().startswith("Logs of the order"), "README.txt touched")
except Exception as e:
    fails.append(f"/app/logs state: {e!r}")

# --- 2. fresh fixture, run twice ---
t = tempfile.mkdtemp(prefix="rot")
open(f"{t}/app.log", "w").write("alpha-1\nalpha-2\n")
for n in range(1, 7):
    gz(f"{t}/app.log.{n}.gz", f"app-gen{n}\n")
open(f"{t}/db.slow.log", "w").write("slow q1\n")
open(f"{t}/idle.log", "w").write("")
gz(f"{t}/idle.log.1.gz", "idle-gen1\n")
gz(f"{t}/idle.log.3.gz", "idle-gen3\n")
open(f"{t}/notes.txt", "w").write("keep me\n")
open(f"{t}/app.log.old", "w").write("not a log\n")
os.mkdir(f"{t}/sub")
open(f"{t}/sub/inner.log", "w").write("inner\n")
ino_app = os.stat(f"{t}/app.log").st_ino
ino_db = os.stat(f"{t}/db.slow.log").st_ino

r = subprocess.run([script, t], capture_output=True, text=True, timeout=60)
check(r.returncode == 0, f"rotate.sh exit {r.returncode}: {r.stderr[-300:]}")
try:
    check(os.stat(f"{t}/app.log").st_ino == ino_app, "app.log inode changed (must truncate in place)")
    check(os.path.getsize(f"{t}/app.log") == 0, "app.log not truncated")
    check(archives(t, "app.log") == [f"app.log.{n}.gz" for n in range(1, 5)], f"app.log archives: {archives(t, 'app.log')}")
    check(gunz(f"{t}/app.log.1.gz") == "alpha-1\nalpha-2\n", "app.log.1.gz content")
    check(gunz(f"{t}/app.log.2.gz") == "app-gen1\n", "app.log.2.gz should be old .1")
    check(gunz(f"{t}/app.log.4.gz") == "app-gen3\n", "app.log.4.gz should be old .3")
    check(os.stat(f"{t}/db.slow.log").st_ino == ino_db, "db.slow.log inode changed")
    check(gunz(f"{t}/db.slow.log.1.gz") == "slow q1\n", "db.slow.log.1.gz content")
    check(archives(t, "idle.log") == ["idle.log.1.gz", "idle.log.3.gz"], f"idle.log archives changed: {archives(t, 'idle.log')}")
    check(gunz(f"{t}/idle.log.1.gz") == "idle-gen1\n", "idle.log.1.gz changed although idle.log empty")
    check(os.path.getsize(f"{t}/idle.log") == 0, "idle.log changed")
    check(open(f"{t}/notes.txt").read() == "keep me\n", "notes.txt touched")
    check(open(f"{t}/app.log.old").read() == "not a log\n", "app.log.old touched")
    check(open(f"{t}/sub/inner.log").read() == "inner\n" and os.listdir(f"{t}/sub") == ["inner.log"], "sub/inner.log touched (not recursive)")
    check(not any(f.endswith(".gz.1.gz") or ".gz.1" in f for f in os.listdir(t)), "archives were rotated as logs")
except Exception as e:
    fails.append(f"fixture run 1: {e!r}")

# second run after new writes
with open(f"{t}/app.log", "a") as f:
    f.write("beta-1\n")
with open(f"{t}/idle.log", "a") as f:
    f.write("idle woke up\n")
r = subprocess.run([script, t], capture_output=True, text=True, timeout=60)
check(r.returncode == 0, f"second run exit {r.returncode}")
try:
    check(os.stat(f"{t}/app.log").st_ino == ino_app, "app.log inode changed on 2nd run")
    check(gunz(f"{t}/app.log.1.gz") == "beta-1\n", "2nd run app.log.1.gz")
    check(gunz(f"{t}/app.log.2.gz") == "alpha-1\nalpha-2\n", "2nd run app.log.2.gz")
    check(archives(t, "app.log") == [f"app.log.{n}.gz" for n in range(1, 5)], "2nd run app archives")
    check(gunz(f"{t}/idle.log.1.gz") == "idle woke up\n", "2nd run idle.log.1.gz")
    check(gunz(f"{t}/idle.log.2.gz") == "idle-gen1\n", "2nd run idle.log.2.gz")
    check(gunz(f"{t}/idle.log.4.gz") == "idle-gen3\n", "2nd run idle.log.4.gz")
    check(archives(t, "db.slow.log") == ["db.slow.log.1.gz"], "db.slow.log (now empty) must not rotate again")
except Exception as e:
    fails.append(f"fixture run 2: {e!r}")

for f in fails:
    print("FAIL:", f)
sys.exit(1 if fails else 0)
