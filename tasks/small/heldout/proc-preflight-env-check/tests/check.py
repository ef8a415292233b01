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

P = "/app/preflight.sh"
if not os.access(P, os.X_OK):
    fails.append(f"{P} missing or not executable")
else:
    for env, code, out, err in [({'API_URL': 'https://uploads.internal/v2', 'API_KEY': 'k-123'}, 0, 'ok', []), ({'API_URL': 'https://uploads.internal/v2'}, 3, '', ['missing API_KEY']), ({'API_URL': '', 'API_KEY': 'k-9'}, 3, '', ['missing API_URL']), ({}, 3, '', ['missing API_URL', 'missing API_KEY'])]:
        r = run([P], env)
        if r is None:
            continue
        got_err = [l.strip() for l in r.stderr.splitlines() if l.strip()]
        if r.returncode != code or r.stdout.strip() != out or got_err != err:
            fails.append(f"with {env}: expected exit {code}, stdout {out!r}, stderr {err}; "
                         f"got {r.returncode}, {r.stdout.strip()!r}, {got_err}")
finish()
