#!/bin/bash
set -e
cd /app/graph

# step: inspect the pages and the raw link dump (duplicates, self-links, external targets)
wc -l pages.txt links.tsv
awk -F'\t' '$1 == $2' links.tsv | head -3
grep -c -v $'\t/' links.tsv || true

# step[easy-to-miss]: write pagerank.py; clean the edges and redistribute the rank of dangling pages uniformly
cat > pagerank.py <<'PY'
#!/usr/bin/env python3
"""PageRank with dangling-node handling. Usage: pagerank.py PAGES.txt LINKS.tsv OUT.csv"""
import sys

import numpy as np

DAMPING = 0.85


def load(pages_path, links_path):
    pages = [l.strip() for l in open(pages_path) if l.strip()]
    idx = {p: i for i, p in enumerate(pages)}
    edges = set()
    for line in open(links_path):
        parts = line.rstrip("\n").split("\t")
        if len(parts) != 2:
            continue
        a, b = parts
        if a in idx and b in idx and a != b:
            edges.add((idx[a], idx[b]))
    return pages, sorted(edges)


def pagerank(n, edges, tol=1e-12, max_iter=1000):
    src = np.array([a for a, _ in edges], dtype=int)
    dst = np.array([b for _, b in edges], dtype=int)
    outdeg = np.bincount(src, minlength=n).astype(float)
    dangling = outdeg == 0
    r = np.full(n, 1.0 / n)
    for _ in range(max_iter):
        new = np.full(n, (1 - DAMPING) / n)
        np.add.at(new, dst, DAMPING * r[src] / outdeg[src])
        new += DAMPING * r[dangling].sum() / n
        done = np.abs(new - r).sum() < tol
        r = new
        if done:
            break
    return r


def main(pages_path, links_path, out_path):
    pages, edges = load(pages_path, links_path)
    r = pagerank(len(pages), edges)
    order = sorted(range(len(pages)), key=lambda i: (-round(r[i], 13), pages[i]))
    with open(out_path, "w") as f:
        f.write("page,score\n")
        for i in order:
            f.write(f"{pages[i]},{r[i]:.12f}\n")


if __name__ == "__main__":
    main(*sys.argv[1:4])
PY

# step: run it on the site
python3 pagerank.py pages.txt links.tsv pagerank.csv
head -5 pagerank.csv
