import os, subprocess, sys

FAILS = []
P = "/app/bin/shout.sh"


def fail(msg):
    FAILS.append(msg)


def expect(arg, want):
    try:
        r = subprocess.run([P, arg], capture_output=True, text=True, timeout=10, cwd="/tmp",
                           env={"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"})
    except (OSError, subprocess.TimeoutExpired) as exc:
        fail(f"{P} {arg!r}: {exc!r}")
        return
    got = r.stdout.rstrip("\n").rstrip()
    if r.returncode != 0 or got != want:
        fail(f"{P} {arg!r}: expected exit 0 and {want!r}, got exit {r.returncode} and {got!r} "
             f"{r.stderr.strip()[-200:]!r}")


def finish():
    for m in FAILS:
        print("FAIL:", m)
    if FAILS:
        sys.exit(1)
    print("all checks passed")


if not os.path.isfile(P):
    fail(f"{P} is missing")
elif not os.access(P, os.X_OK):
    fail(f"{P} is not executable")
else:
    expect("disk full on db-2", "DISK FULL ON DB-2")
    expect("Backup at 03:15 failed (exit 12)!", "BACKUP AT 03:15 FAILED (EXIT 12)!")
    expect("cert expires in 3 days: api.example.org", "CERT EXPIRES IN 3 DAYS: API.EXAMPLE.ORG")
    expect("ALREADY LOUD", "ALREADY LOUD")
finish()
