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

P = "/app/tools/countmatch.sh"
if not os.path.isfile(P):
    fails.append(f"{P} missing")
elif not os.access(P, os.X_OK):
    fails.append(f"{P} is not executable")
else:
    expect([P, "TIMEOUT", "/tests/texts/svc.log"], "3")
    expect([P, "WARN", "/tests/texts/svc.log"], "1")
    expect([P, "TIMEOUT", "/tests/texts/clean.log"], "0")
    r = run([P, "TIMEOUT", "/tmp/does-not-exist.log"])
    if r is not None and (r.returncode != 2 or "no such file: /tmp/does-not-exist.log" not in r.stderr):
        fails.append(f"missing file: expected exit 2 and the message on stderr, got {r.returncode} {r.stderr!r}")
finish()
