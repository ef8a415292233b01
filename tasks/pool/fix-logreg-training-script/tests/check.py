import csv, hashlib, shutil, subprocess, sys, tempfile
from pathlib import Path

def fail(msg):
    print("FAIL:", msg); sys.exit(1)

app = Path("/app/churn")
want = Path("/tests/predict.sha256").read_text().split()[0]
if hashlib.sha256((app / "predict.py").read_bytes()).hexdigest() != want:
    fail("predict.py was modified")

labels = [int(r["churned"]) for r in csv.DictReader(open("/tests/test.csv", newline=""))]

def score(workdir, model):
    out = Path(workdir) / "test_pred.csv"
    r = subprocess.run([sys.executable, "/tests/predict_ref.py", "/tests/test.csv", str(model), str(out)],
                       capture_output=True, text=True, timeout=120)
    if r.returncode != 0: fail(f"scoring failed: {r.stderr[-500:]}")
    preds = [int(x["churn"]) for x in csv.DictReader(open(out, newline=""))]
    if len(preds) != len(labels): fail("wrong number of predictions")
    return sum(p == y for p, y in zip(preds, labels)) / len(labels)

# 1. the model left in /app/churn
if not (app / "model.json").is_file(): fail("no model.json in /app/churn")
acc = score(tempfile.mkdtemp(), app / "model.json")
print(f"accuracy of /app/churn/model.json on unseen data: {acc:.3f}")
if acc < 0.90: fail("model.json accuracy below 0.90")

# 2. a fresh training run from a clean copy of the project
tmp = Path(tempfile.mkdtemp()) / "churn"
shutil.copytree(app, tmp, ignore=shutil.ignore_patterns("model.json", "predictions.csv", ".git"))
try:
    r = subprocess.run([sys.executable, "train.py"], cwd=tmp, capture_output=True, text=True, timeout=300)
except subprocess.TimeoutExpired:
    fail("train.py took too long")
if r.returncode != 0 or not (tmp / "model.json").is_file():
    fail(f"train.py failed: {r.stderr[-800:]}")
acc2 = score(tmp, tmp / "model.json")
print(f"accuracy after a fresh train.py run: {acc2:.3f}")
if acc2 < 0.90: fail("freshly trained model accuracy below 0.90")
print("all checks passed")
