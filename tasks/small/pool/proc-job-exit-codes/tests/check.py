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

WANT = ['check_disk.sh 2', 'check_dns.sh 0', 'check_mail.sh 4', 'check_ntp.sh 0']
try:
    got = [" ".join(l.split()) for l in open("/app/job_status.txt").read().splitlines() if l.strip()]
except OSError as e:
    fails.append(f"/app/job_status.txt: {e}")
    got = None
if got is not None and got != WANT:
    fails.append(f"expected {WANT}, got {got}")
finish()
