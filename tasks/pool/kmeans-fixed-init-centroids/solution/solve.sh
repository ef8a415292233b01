#!/bin/bash
set -e
cd /app

# step: inspect the data and the initial centroids
head -3 data/points.csv
cat data/init_centroids.csv

# step[easy-to-miss]: write kmeans.py; a centroid with no assigned points keeps its previous position (no NaN mean)
cat > /app/kmeans.py <<'PY'
#!/usr/bin/env python3
"""Lloyd's k-means with given initial centroids. Usage: kmeans.py POINTS.csv INIT.csv OUTDIR"""
import json
import os
import sys

import numpy as np


def assign(X, C):
    d = ((X[:, None, :] - C[None, :, :]) ** 2).sum(axis=2)
    return np.argmin(d, axis=1)  # argmin returns the first (lowest) index on ties


def kmeans(X, C, max_iter=100):
    C = C.copy()
    labels = assign(X, C)
    for _ in range(max_iter):
        for k in range(len(C)):
            members = labels == k
            if members.any():
                C[k] = X[members].mean(axis=0)
        new = assign(X, C)
        if np.array_equal(new, labels):
            break
        labels = new
    return labels, C


def main(points, init, outdir):
    X = np.loadtxt(points, delimiter=",", skiprows=1, ndmin=2)
    C = np.loadtxt(init, delimiter=",", skiprows=1, ndmin=2)
    header = open(init).readline().strip()
    labels, C = kmeans(X, C)
    os.makedirs(outdir, exist_ok=True)
    np.savetxt(os.path.join(outdir, "labels.txt"), labels, fmt="%d")
    np.savetxt(os.path.join(outdir, "centroids.csv"), C, fmt="%.6f", delimiter=",", header=header, comments="")
    inertia = float(((X - C[labels]) ** 2).sum())
    sizes = np.bincount(labels, minlength=len(C)).tolist()
    with open(os.path.join(outdir, "summary.json"), "w") as f:
        json.dump({"inertia": inertia, "cluster_sizes": sizes}, f, indent=2)


if __name__ == "__main__":
    main(*sys.argv[1:4])
PY

# step: run it on the project data
python3 /app/kmeans.py /app/data/points.csv /app/data/init_centroids.csv /app/out
cat /app/out/summary.json
