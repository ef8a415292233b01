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

P = "/app/topwords.py"
if not os.path.isfile(P):
    fails.append(f"{P} missing")
else:
    expect(["python3", P, "/tests/texts/animals.txt", "4"], '4 the\n3 and\n3 lion\n3 yak')
    expect(["python3", P, "/tests/texts/greek.txt", "3"], '2 alpha\n2 beta\n2 gamma')
    expect(["python3", P, "/tests/texts/greek.txt", "1"], '2 alpha')
finish()
