import json, subprocess, sys, tempfile
from pathlib import Path

def fail(msg):
    print("FAIL:", msg); sys.exit(1)

def compare(path, expected_path):
    p = Path(path)
    if not p.is_file(): fail(f"missing {p}")
    try:
        got = json.loads(p.read_text())
    except Exception as e:
        fail(f"{p} is not JSON: {e}")
    exp = json.loads(Path(expected_path).read_text())
    if not isinstance(got, list) or len(got) != 3: fail(f"{p}: expected a list of 3 peaks, got {got!r}")
    for i, (g, e) in enumerate(zip(got, exp)):
        try:
            fg, ag = float(g["freq_hz"]), float(g["amplitude"])
        except Exception:
            fail(f"{p}: bad peak object {g!r}")
        if abs(fg - e["freq_hz"]) > 0.0015 or abs(ag - e["amplitude"]) > 0.003:
            fail(f"{p}: peak {i} = {g}, expected {e}")

if not Path("/app/analysis/peaks.py").is_file(): fail("missing /app/analysis/peaks.py")
compare("/app/analysis/peaks.json", "/tests/expected_main.json")
out = Path(tempfile.mkdtemp()) / "peaks.json"
r = subprocess.run([sys.executable, "/app/analysis/peaks.py", "/tests/hidden/pump_velocity.csv",
                    "/tests/hidden/meta.json", str(out)], capture_output=True, text=True, timeout=120)
if r.returncode != 0: fail(f"peaks.py failed on another recording: {r.stderr[-600:]}")
compare(out, "/tests/expected_hidden.json")
print("all checks passed")
