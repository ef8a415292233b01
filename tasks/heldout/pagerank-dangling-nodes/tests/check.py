import csv, subprocess, sys, tempfile
from pathlib import Path

def fail(msg):
    print("FAIL:", msg); sys.exit(1)

def compare(path, expected):
    p = Path(path)
    if not p.is_file(): fail(f"missing {p}")
    rows = [r for r in csv.reader(open(p, newline="")) if r]
    if not rows or [c.strip() for c in rows[0]] != ["page", "score"]: fail(f"{p}: bad header {rows[:1]}")
    exp = {r[0]: float(r[1]) for r in list(csv.reader(open(expected, newline="")))[1:] if r}
    got_pages = [r[0] for r in rows[1:]]
    if sorted(got_pages) != sorted(exp): fail(f"{p}: page set differs from the listed pages")
    try:
        got = {r[0]: float(r[1]) for r in rows[1:]}
    except (ValueError, IndexError):
        fail(f"{p}: non-numeric score")
    for page, s in exp.items():
        if abs(got[page] - s) > 1e-9:
            fail(f"{p}: score of {page} is {got[page]!r}, expected {s:.12f}")
    if abs(sum(got.values()) - 1) > 1e-8: fail(f"{p}: scores sum to {sum(got.values())}")
    for a, b in zip(got_pages, got_pages[1:]):
        sa, sb = exp[a], exp[b]
        if sa > sb + 1e-10 or (abs(sa - sb) <= 1e-10 and a < b):
            continue
        fail(f"{p}: wrong order at {a} / {b}")

compare("/app/graph/pagerank.csv", "/tests/expected_main.csv")
if not Path("/app/graph/pagerank.py").is_file(): fail("missing /app/graph/pagerank.py")
out = Path(tempfile.mkdtemp()) / "pr.csv"
r = subprocess.run([sys.executable, "/app/graph/pagerank.py", "/tests/hidden/pages.txt", "/tests/hidden/links.tsv", str(out)],
                   capture_output=True, text=True, timeout=120)
if r.returncode != 0: fail(f"pagerank.py failed on another site: {r.stderr[-600:]}")
compare(out, "/tests/expected_hidden.csv")
print("all checks passed")
