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

import json
WANT = {'team': 'ops', 'open': 3, 'closed': 2, 'oldest_open': 'INC-4104', 'incidents': ['INC-4101', 'INC-4103', 'INC-4104', 'INC-4106', 'INC-4108']}
try:
    got = json.load(open("/app/ops_report.json"))
except (OSError, ValueError) as e:
    fails.append(f"/app/ops_report.json is missing or not JSON: {e}")
else:
    if got != WANT:
        fails.append(f"report differs from the service's answer: {got}")
finish()
