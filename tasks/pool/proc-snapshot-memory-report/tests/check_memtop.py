import csv, io, subprocess, sys

fails = []

def rows_of(text):
    rows = list(csv.reader(io.StringIO(text)))
    return [[c.strip() for c in r] for r in rows if r]

def compare(label, got_text, exp_path):
    exp = rows_of(open(exp_path).read())
    got = rows_of(got_text)
    if got != exp:
        fails.append(f"{label}: output differs")
        for i in range(max(len(got), len(exp))):
            g = got[i] if i < len(got) else None
            e = exp[i] if i < len(exp) else None
            if g != e:
                print(f"  {label} row {i}: got {g} expected {e}")
                break

try:
    compare("/app/report.csv", open("/app/report.csv").read(), "/tests/expected_report.csv")
except Exception as e:
    fails.append(f"/app/report.csv: {e!r}")

for args, exp in ((["7"], "/tests/expected_snap2_top7.csv"), (["40"], "/tests/expected_snap2_all.csv")):
    try:
        r = subprocess.run(["python3", "/app/memtop.py", "/tests/snap2"] + args, capture_output=True, text=True, timeout=60)
        if r.returncode != 0:
            fails.append(f"memtop.py exit {r.returncode}: {r.stderr[-300:]}")
        else:
            compare(f"snapshot2 N={args[0]}", r.stdout, exp)
    except Exception as e:
        fails.append(f"memtop.py run: {e!r}")

for f in fails:
    print("FAIL:", f)
sys.exit(1 if fails else 0)
