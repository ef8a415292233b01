import subprocess, sys

fails = []

def diff(label, got, exp):
    g, e = got.splitlines(True), exp.splitlines(True)
    if g == e:
        return
    for i in range(max(len(g), len(e))):
        a = g[i] if i < len(g) else "<missing>"
        b = e[i] if i < len(e) else "<missing>"
        if a != b:
            fails.append(f"{label} line {i+1}:\n   got      {a!r}\n   expected {b!r}")
            return
    fails.append(f"{label}: differs")

for name in ("checkout", "support-api"):
    try:
        diff(f"/app/redacted/{name}.log", open(f"/app/redacted/{name}.log").read(), open(f"/tests/expected_{name}.log").read())
    except Exception as ex:
        fails.append(f"/app/redacted/{name}.log: {ex!r}")
    try:
        orig = open(f"/app/logs/{name}.log").read()
        if "[EMAIL]" in orig or "[CARD]" in orig:
            fails.append(f"/app/logs/{name}.log was modified")
    except Exception as ex:
        fails.append(f"/app/logs/{name}.log: {ex!r}")

try:
    r = subprocess.run(["python3", "/app/redact.py"], stdin=open("/tests/sample_in.txt"), capture_output=True, text=True, timeout=60)
    if r.returncode != 0:
        fails.append(f"redact.py exit {r.returncode}: {r.stderr[-300:]}")
    else:
        diff("redact.py on a new sample", r.stdout, open("/tests/sample_expected.txt").read())
except Exception as ex:
    fails.append(f"redact.py: {ex!r}")

for f in fails:
    print("FAIL:", f)
sys.exit(1 if fails else 0)
