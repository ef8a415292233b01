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

P = "/app/runlog.sh"
if not os.access(P, os.X_OK):
    fails.append(f"{P} missing or not executable")
else:
    if os.path.exists("/app/run_history.log"):
        os.remove("/app/run_history.log")
    for args, code, out in ((["echo", "hello", "there"], 0, "hello there"), (["false"], 1, ""),
                            (["sh", "-c", "exit 7"], 7, ""), (["ls", "/nonexistent-dir"], 2, "")):
        r = run([P, *args])
        if r is not None and (r.returncode != code or r.stdout.strip() != out):
            fails.append(f"{args}: expected exit {code} and {out!r}, got {r.returncode} and {r.stdout.strip()!r}")
    want = ["0 echo hello there", "1 false", "7 sh -c exit 7", "2 ls /nonexistent-dir"]
    try:
        got = open("/app/run_history.log").read().splitlines()
    except OSError as e:
        fails.append(f"/app/run_history.log: {e}")
    else:
        if [l.rstrip() for l in got] != want:
            fails.append(f"run_history.log: expected {want}, got {got}")
finish()
