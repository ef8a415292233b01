#!/bin/bash
set -e
cd /app
mkdir -p pca

# step: inspect the two batch files
head -3 data/reference_batches.csv data/new_batches.csv

# step: fit the PCA (centre only, SVD) on the reference batches
python3 - <<'PY'
import numpy as np
X = np.loadtxt("data/reference_batches.csv", delimiter=",", skiprows=1, usecols=range(1, 7))
mean = X.mean(axis=0)
U, S, Vt = np.linalg.svd(X - mean, full_matrices=False)
np.savez("/tmp/pca_fit.npz", mean=mean, S=S, Vt=Vt)
print("explained variance ratio", S**2 / np.sum(S**2))
PY

# step[easy-to-miss]: apply the sign convention (largest |loading| positive), then write components, ratios and projected new batches
python3 - <<'PY'
import csv, json
import numpy as np
fit = np.load("/tmp/pca_fit.npz")
mean, S, Vt = fit["mean"], fit["S"], fit["Vt"].copy()
for i in range(Vt.shape[0]):
    if Vt[i, np.argmax(np.abs(Vt[i]))] < 0:
        Vt[i] = -Vt[i]
names = open("data/reference_batches.csv").readline().strip().split(",")[1:]
with open("pca/components.csv", "w", newline="") as f:
    w = csv.writer(f, lineterminator="\n")
    w.writerow(["component"] + names)
    for i in range(2):
        w.writerow([f"PC{i+1}"] + [f"{v:.6f}" for v in Vt[i]])
json.dump([float(r) for r in S**2 / np.sum(S**2)], open("pca/explained_variance_ratio.json", "w"), indent=2)
rows = list(csv.reader(open("data/new_batches.csv", newline="")))[1:]
Xn = np.array([[float(v) for v in r[1:]] for r in rows])
scores = (Xn - mean) @ Vt[:2].T
with open("pca/new_batch_scores.csv", "w", newline="") as f:
    w = csv.writer(f, lineterminator="\n")
    w.writerow(["sample", "pc1", "pc2"])
    for r, s in zip(rows, scores):
        w.writerow([r[0], f"{s[0]:.6f}", f"{s[1]:.6f}"])
PY
