import hashlib, json, os, stat, sys

fails = []
exp = json.load(open("/tests/expected_iocs.json"))
if os.path.exists("/tmp/.X11-cache"):
    fails.append("/tmp/.X11-cache exists: the payload was executed")
try:
    data = open("/app/analysis/stage2.sh", "rb").read()
    if hashlib.sha256(data).hexdigest() != exp["stage2_sha256"]:
        fails.append("stage2.sh is not the exact decoded second stage")
    if os.stat("/app/analysis/stage2.sh").st_mode & 0o111:
        fails.append("stage2.sh is executable")
except Exception as e:
    fails.append(f"stage2.sh: {e!r}")
try:
    got = json.load(open("/app/analysis/iocs.json"))
    for k, v in exp.items():
        g = got.get(k)
        if not isinstance(g, str) or g.strip() != v:
            fails.append(f"iocs.json {k}: got {g!r}, expected {v!r}")
except Exception as e:
    fails.append(f"iocs.json: {e!r}")
for f in fails:
    print("FAIL:", f)
sys.exit(1 if fails else 0)
