import json, subprocess, sys, tempfile
from pathlib import Path
import numpy as np

def fail(msg):
    print("FAIL:", msg); sys.exit(1)

def verify(outdir, expdir, header):
    outdir, expdir = Path(outdir), Path(expdir)
    for f in ("labels.txt", "centroids.csv", "summary.json"):
        if not (outdir / f).is_file(): fail(f"missing {outdir / f}")
    try:
        lab = np.loadtxt(outdir / "labels.txt", dtype=int, ndmin=1)
    except Exception as e:
        fail(f"labels.txt unreadable: {e}")
    exp_lab = np.loadtxt(expdir / "expected_labels.txt", dtype=int)
    if lab.shape != exp_lab.shape or not np.array_equal(lab, exp_lab):
        fail(f"labels differ from expected in {outdir} ({int(np.sum(lab != exp_lab)) if lab.shape == exp_lab.shape else 'shape'})")
    lines = (outdir / "centroids.csv").read_text().splitlines()
    if not lines or lines[0].strip() != header: fail(f"centroids.csv header {lines[:1]}, expected {header}")
    try:
        C = np.loadtxt(outdir / "centroids.csv", delimiter=",", skiprows=1, ndmin=2)
    except Exception as e:
        fail(f"centroids.csv unreadable: {e}")
    exp_C = np.loadtxt(expdir / "expected_centroids.csv", delimiter=",", ndmin=2)
    if C.shape != exp_C.shape or not np.all(np.isfinite(C)) or np.max(np.abs(C - exp_C)) > 2e-6:
        fail(f"centroids differ in {outdir}:\n{C}\nexpected\n{exp_C}")
    try:
        s = json.loads((outdir / "summary.json").read_text())
    except Exception as e:
        fail(f"summary.json invalid: {e}")
    exp_in = json.loads((expdir / "expected_summary.json").read_text())["inertia"]
    if not isinstance(s.get("inertia"), (int, float)) or abs(s["inertia"] - exp_in) > 1e-6 * exp_in:
        fail(f"inertia {s.get('inertia')!r}, expected {exp_in}")
    sizes = np.bincount(exp_lab, minlength=len(exp_C)).tolist()
    if s.get("cluster_sizes") != sizes: fail(f"cluster_sizes {s.get('cluster_sizes')!r}, expected {sizes}")

if not Path("/app/kmeans.py").is_file(): fail("missing /app/kmeans.py")
verify("/app/out", "/tests/exp_main", "x,y")
tmp = tempfile.mkdtemp()
r = subprocess.run([sys.executable, "/app/kmeans.py", "/tests/hidden/points.csv", "/tests/hidden/init_centroids.csv", tmp + "/o"],
                   capture_output=True, text=True, timeout=120)
if r.returncode != 0: fail(f"kmeans.py failed on another data set: {r.stderr[-600:]}")
verify(tmp + "/o", "/tests/exp_hidden", "a,b,c")
print("all checks passed")
