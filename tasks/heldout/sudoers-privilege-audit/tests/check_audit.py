import json, subprocess, sys

fails = []
KEYS = ("uid0_accounts", "empty_passwords", "sudo_all", "sudo_all_nopasswd")

def compare(label, got, exp):
    if not isinstance(got, dict):
        fails.append(f"{label}: not a JSON object"); return
    for k in KEYS:
        if got.get(k) != exp[k]:
            fails.append(f"{label} {k}: got {got.get(k)}, expected {exp[k]}")

try:
    compare("/app/audit.json", json.load(open("/app/audit.json")), json.load(open("/tests/expected_main.json")))
except Exception as e:
    fails.append(f"/app/audit.json: {e!r}")
try:
    r = subprocess.run(["python3", "/app/audit.py", "/tests/snap2"], capture_output=True, text=True, timeout=60)
    if r.returncode != 0:
        fails.append(f"audit.py on a second snapshot: exit {r.returncode} {r.stderr[-300:]}")
    else:
        compare("second snapshot", json.loads(r.stdout), json.load(open("/tests/expected_snap2.json")))
except Exception as e:
    fails.append(f"audit.py: {e!r}")
for f in fails:
    print("FAIL:", f)
sys.exit(1 if fails else 0)
