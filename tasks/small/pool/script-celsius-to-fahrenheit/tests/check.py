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

P = "/app/c2f.py"
if not os.path.isfile(P):
    fails.append(f"{P} missing")
elif not os.access(P, os.X_OK):
    fails.append(f"{P} is not executable")
else:
    expect([P, "100"], "212.0")
    expect([P, "0"], "32.0")
    expect([P, "-40"], "-40.0")
    expect([P, "36.6"], "97.9")
    expect([P, "-17.5"], "0.5")
    expect([P, "21.3"], "70.3")
finish()
