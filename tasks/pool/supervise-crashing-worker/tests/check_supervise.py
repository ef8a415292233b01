import os, shutil, signal, subprocess, sys, tempfile, time

fails = []
SUP = "/app/supervise"
PIDFILE = "/app/run/worker.pid"
LOG = "/app/run/supervisor.log"
started = []

def alive(pid):
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().split(") ")[-1].split()[0] != "Z"
    except (FileNotFoundError, ProcessLookupError):
        return False

def reset():
    for p in (PIDFILE, LOG):
        if os.path.exists(p):
            os.remove(p)

def start(plan):
    st = tempfile.mkdtemp(prefix="fw") + "/s"
    env = dict(os.environ, FAKE_STATE=st, FAKE_PLAN=plan)
    p = subprocess.Popen([SUP, "python3", "/tests/fake_worker.py"], env=env,
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    started.append(p)
    return p, st

def log_lines():
    try:
        return [l.rstrip("\n") for l in open(LOG) if l.strip()]
    except FileNotFoundError:
        return []

def worker_pids(st):
    try:
        return [int(x) for x in open(st + ".pids").read().split()]
    except FileNotFoundError:
        return []

def main():
    if not (os.path.isfile(SUP) and os.access(SUP, os.X_OK)):
        fails.append("/app/supervise missing or not executable")
        return
    # A: two crashes then clean exit
    reset()
    p, st = start("3,5,0")
    try:
        rc = p.wait(timeout=20)
        if rc != 0:
            fails.append(f"A: supervisor exit {rc}, expected 0")
    except subprocess.TimeoutExpired:
        fails.append("A: supervisor did not exit after worker exited 0")
    if log_lines() != ["restart 1 exit=3", "restart 2 exit=5"]:
        fails.append(f"A: log {log_lines()}")
    if len(worker_pids(st)) != 3:
        fails.append(f"A: worker started {len(worker_pids(st))} times, expected 3")
    if os.path.exists(PIDFILE):
        fails.append("A: pid file left behind after clean exit")

    # B: always failing -> give up
    reset()
    p, st = start("7")
    try:
        rc = p.wait(timeout=25)
        if rc != 1:
            fails.append(f"B: supervisor exit {rc}, expected 1")
    except subprocess.TimeoutExpired:
        fails.append("B: supervisor never gave up")
    exp = ["restart 1 exit=7", "restart 2 exit=7", "restart 3 exit=7", "giving up after 3 restarts"]
    if log_lines() != exp:
        fails.append(f"B: log {log_lines()}")
    if len(worker_pids(st)) != 4:
        fails.append(f"B: worker started {len(worker_pids(st))} times, expected 4")
    if os.path.exists(PIDFILE):
        fails.append("B: pid file left behind after giving up")

    # C: crash once, then long running; pid file and SIGTERM handling
    reset()
    p, st = start("4,run")
    deadline = time.time() + 15
    wp = None
    while time.time() < deadline:
        pids = worker_pids(st)
        if len(pids) >= 2 and os.path.exists(PIDFILE):
            try:
                content = open(PIDFILE).read().strip()
            except FileNotFoundError:
                content = ""
            if content == str(pids[-1]):
                wp = pids[-1]
                break
        time.sleep(0.1)
    if wp is None:
        fails.append(f"C: pid file does not hold the running worker's pid (pids={worker_pids(st)}, file={open(PIDFILE).read().strip() if os.path.exists(PIDFILE) else None})")
    time.sleep(0.5)
    if p.poll() is not None:
        fails.append("C: supervisor exited while worker was running")
    else:
        p.send_signal(signal.SIGTERM)
        try:
            rc = p.wait(timeout=10)
            if rc != 0:
                fails.append(f"C: supervisor exit {rc} after SIGTERM, expected 0")
        except subprocess.TimeoutExpired:
            fails.append("C: supervisor did not stop on SIGTERM")
    time.sleep(0.3)
    for pid in worker_pids(st):
        if alive(pid):
            fails.append(f"C: worker {pid} still running after supervisor stopped")
    if not os.path.exists(st + ".term"):
        fails.append("C: worker never received SIGTERM")
    if os.path.exists(PIDFILE):
        fails.append("C: pid file left behind after SIGTERM")
    if log_lines() != ["restart 1 exit=4", "stopped"]:
        fails.append(f"C: log {log_lines()}")
    if len(worker_pids(st)) != 2:
        fails.append(f"C: worker started {len(worker_pids(st))} times, expected 2")

try:
    main()
except Exception as e:
    fails.append(f"crash: {e!r}")
finally:
    for p in started:
        try:
            os.killpg(p.pid, signal.SIGKILL)
        except Exception:
            pass
for f in fails:
    print("FAIL:", f)
sys.exit(1 if fails else 0)
