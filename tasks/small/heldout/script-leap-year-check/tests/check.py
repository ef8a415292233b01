import os, subprocess, sys
fails = []
def run(args, **kw):
    try:
        return subprocess.run(args, capture_output=True, text=True, timeout=10, cwd="/tmp",
                              env={"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"}, **kw)
    except (OSError, subprocess.TimeoutExpired) as e:
        fails.append(f"{args}: {e!r}")
        return None
def expect(args, out, code=0):
    r = run(args)
    if r is None:
        return
    if r.returncode != code or r.stdout.strip() != out:
        fails.append(f"{args[1:]}: expected exit {code} and {out!r}, got exit {r.returncode} and {r.stdout.strip()!r} {r.stderr.strip()[-200:]!r}")
def finish():
    for f in fails:
        print("FAIL:", f)
    sys.exit(1 if fails else 0)

P = "/app/leap.sh"
if not os.path.isfile(P):
    fails.append(f"{P} missing")
elif not os.access(P, os.X_OK):
    fails.append(f"{P} is not executable")
else:
    expect([P, "2024"], "leap")
    expect([P, "2023"], "common")
    expect([P, "1900"], "common")
    expect([P, "2000"], "leap")
    expect([P, "2100"], "common")
    expect([P, "1600"], "leap")
    expect([P, "1996"], "leap")
    expect([P, "2001"], "common")
finish()
