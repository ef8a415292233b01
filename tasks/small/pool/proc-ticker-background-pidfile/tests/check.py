import os, subprocess, sys, time
fails = []
def run(args, env=None, **kw):
    e = {"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"}
    e.update(env or {})
    try:
        return subprocess.run(args, capture_output=True, text=True, timeout=10, cwd="/tmp", env=e, **kw)
    except (OSError, subprocess.TimeoutExpired) as ex:
        fails.append(f"{args}: {ex!r}")
        return None
def finish():
    for f in fails:
        print("FAIL:", f)
    sys.exit(1 if fails else 0)

P = "/app/start_ticker.sh"
def main():
    if not os.path.isfile(P):
        return fails.append("/app/start_ticker.sh missing")
    if os.path.exists("/app/ticker.pid"):
        os.remove("/app/ticker.pid")
    t0 = time.monotonic()
    try:
        r = subprocess.run(["bash", P], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL, timeout=10, cwd="/")
    except subprocess.TimeoutExpired:
        return fails.append("start_ticker.sh did not return")
    if r.returncode != 0:
        return fails.append(f"start_ticker.sh exited {r.returncode}")
    if time.monotonic() - t0 > 5:
        fails.append("start_ticker.sh did not return right away")
    try:
        pid = int(open("/app/ticker.pid").read().strip())
    except (OSError, ValueError) as e:
        return fails.append(f"/app/ticker.pid: {e!r}")
    cmd = None
    for _ in range(30):  # a forked job shows its parent's command line until it has exec'd
        try:
            cmd = open(f"/proc/{pid}/cmdline", "rb").read().split(b"\0")
        except OSError:
            return fails.append(f"no process {pid} running after start_ticker.sh returned")
        if any(a.endswith(b"ticker.py") for a in cmd):
            break
        time.sleep(0.1)
    else:
        return fails.append(f"PID {pid} is not the ticker process: {cmd}")
    size = os.path.getsize("/app/ticker.log") if os.path.exists("/app/ticker.log") else 0
    time.sleep(1.5)
    grown = os.path.getsize("/app/ticker.log") if os.path.exists("/app/ticker.log") else 0
    if grown <= size:
        fails.append("/app/ticker.log is not being written")
    else:
        last = open("/app/ticker.log").read().splitlines()[-1:]
        if not last or not last[0].startswith("tick "):
            fails.append(f"unexpected log content {last}")
    try:
        os.kill(pid, 15)
    except OSError:
        pass
main()
finish()
