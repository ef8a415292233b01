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

P = "/app/dburl.sh"
if not os.access(P, os.X_OK):
    fails.append(f"{P} missing or not executable")
else:
    for env, want in [({'DB_USER': 'reporter', 'DB_HOST': '10.0.0.5', 'DB_PORT': '5433', 'DB_NAME': 'sales'}, 'postgres://reporter@10.0.0.5:5433/sales'), ({'DB_USER': 'app_rw', 'DB_HOST': 'db.internal'}, 'postgres://app_rw@db.internal:5432/app'), ({'DB_USER': 'etl', 'DB_HOST': 'warehouse', 'DB_PORT': '', 'DB_NAME': ''}, 'postgres://etl@warehouse:5432/app'), ({'DB_USER': 'ro', 'DB_HOST': 'replica', 'DB_NAME': 'billing'}, 'postgres://ro@replica:5432/billing')]:
        r = run([P], env)
        if r is not None and (r.returncode != 0 or r.stdout.strip() != want):
            fails.append(f"with {env}: expected {want!r}, got exit {r.returncode} {r.stdout.strip()!r}")
finish()
