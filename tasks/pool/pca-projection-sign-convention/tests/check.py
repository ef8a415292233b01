import csv, json, sys
from pathlib import Path
import numpy as np

def fail(msg):
    print("FAIL:", msg); sys.exit(1)

X = np.loadtxt("/tests/reference_batches.csv", delimiter=",", skiprows=1, usecols=range(1, 7))
names = open("/tests/reference_batches.csv").readline().strip().split(",")[1:]
mean = X.mean(axis=0)
# reference via eigen-decomposition of the covariance matrix
vals, vecs = np.linalg.eigh(np.cov(X - mean, rowvar=False))
order = np.argsort(vals)[::-1]
vals, vecs = vals[order], vecs[:, order].T
for i in range(len(vecs)):
    if vecs[i, np.argmax(np.abs(vecs[i]))] < 0:
        vecs[i] = -vecs[i]
evr = vals / vals.sum()
new = list(csv.reader(open("/tests/new_batches.csv", newline="")))[1:]
Xn = np.array([[float(v) for v in r[1:]] for r in new])
scores = (Xn - mean) @ vecs[:2].T

out = Path("/app/pca")
p = out / "components.csv"
if not p.is_file(): fail("missing components.csv")
rows = [r for r in csv.reader(open(p, newline="")) if r]
if rows[0] != ["component"] + names: fail(f"components.csv header {rows[0]}")
if [r[0] for r in rows[1:]] != ["PC1", "PC2"]: fail(f"component rows {[r[0] for r in rows[1:]]}")
try:
    comp = np.array([[float(v) for v in r[1:]] for r in rows[1:]])
except ValueError:
    fail("non-numeric loadings")
if comp.shape != (2, 6): fail(f"components shape {comp.shape}")
for i in range(2):
    if np.max(np.abs(comp[i] - vecs[i])) > 2e-6:
        if np.max(np.abs(comp[i] + vecs[i])) <= 2e-6:
            fail(f"PC{i+1} has the wrong sign")
        fail(f"PC{i+1} loadings {comp[i]} expected {vecs[i].round(6)}")

p = out / "explained_variance_ratio.json"
if not p.is_file(): fail("missing explained_variance_ratio.json")
try:
    got = np.array(json.loads(p.read_text()), dtype=float)
except Exception as e:
    fail(f"explained_variance_ratio.json: {e}")
if got.shape != (6,) or np.max(np.abs(got - evr)) > 1e-6: fail(f"explained variance ratio {got} expected {evr}")

p = out / "new_batch_scores.csv"
if not p.is_file(): fail("missing new_batch_scores.csv")
rows = [r for r in csv.reader(open(p, newline="")) if r]
if rows[0] != ["sample", "pc1", "pc2"]: fail(f"new_batch_scores.csv header {rows[0]}")
if [r[0] for r in rows[1:]] != [r[0] for r in new]: fail("sample ids/order differ")
try:
    sc = np.array([[float(v) for v in r[1:3]] for r in rows[1:]])
except ValueError:
    fail("non-numeric scores")
if sc.shape != scores.shape or np.max(np.abs(sc - scores)) > 5e-5:
    fail(f"scores differ, max abs error {np.max(np.abs(sc - scores)) if sc.shape == scores.shape else 'shape'}")
print("all checks passed")
