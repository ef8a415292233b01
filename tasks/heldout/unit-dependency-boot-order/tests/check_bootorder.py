import os, subprocess, sys, tempfile
sys.path.insert(0, "/tests")
import fixtures

fails = []

def lines(text):
    return [l.strip() for l in text.splitlines() if l.strip()]

def expect(label, got, path):
    exp = lines(open(path).read())
    if got != exp:
        fails.append(f"{label}:\n   got      {got}\n   expected {exp}")

try:
    expect("/app/boot-order.txt", lines(open("/app/boot-order.txt").read()), "/tests/expected_app.txt")
except Exception as e:
    fails.append(f"/app/boot-order.txt: {e!r}")

def run(d, target):
    return subprocess.run(["python3", "/app/bootorder.py", d, target], capture_output=True, text=True, timeout=60)

try:
    d = tempfile.mkdtemp(prefix="units")
    fixtures.build_desktop(d)
    for target, exp in (("graphical.target", "/tests/expected_desktop_graphical.txt"),
                        ("multi-user.target", "/tests/expected_desktop_multi.txt")):
        r = run(d, target)
        if r.returncode != 0:
            fails.append(f"{target}: exit {r.returncode} {r.stderr[-300:]}")
        else:
            expect(f"desktop {target}", lines(r.stdout), exp)
    c = tempfile.mkdtemp(prefix="cycle")
    fixtures.build_cycle(c)
    r = run(c, "boot.target")
    if r.returncode != 1:
        fails.append(f"cycle: expected exit status 1, got {r.returncode}")
    if not r.stderr.strip():
        fails.append("cycle: no error message on stderr")
except Exception as e:
    fails.append(f"runs: {e!r}")

for f in fails:
    print("FAIL:", f)
sys.exit(1 if fails else 0)
