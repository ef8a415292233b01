import re, subprocess, sys
from datetime import datetime, timezone

LV = {"DEBUG": 0, "INFO": 1, "WARN": 2, "ERROR": 3}
RX = re.compile(r"^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z) (DEBUG|INFO|WARN|ERROR) ([A-Za-z0-9_.-]+): (.*)$")

def ts(s):
    for f in ("%Y-%m-%dT%H:%M:%SZ", "%Y-%m-%d"):
        try:
            return datetime.strptime(s, f).replace(tzinfo=timezone.utc)
        except ValueError:
            pass
    raise ValueError(s)

def ref(files, level=None, since=None, until=None, comps=None):
    out = []
    for f in files:
        for line in open(f).read().splitlines():
            m = RX.match(line)
            if not m:
                continue
            t = ts(m.group(1))
            if level and LV[m.group(2)] < LV[level]: continue
            if since and t < ts(since): continue
            if until and t >= ts(until): continue
            if comps and m.group(3) not in comps: continue
            out.append(line)
    return out

A, B = "/tests/logs/a.log", "/tests/logs/b.log"
def run(args):
    return subprocess.run([sys.executable, "/app/logq.py"] + args, capture_output=True, text=True, timeout=30, cwd="/tmp")

errors = []
def case(name, args, rc, stdout=None, stderr_has=None):
    r = run(args)
    if r.returncode != rc:
        errors.append(f"{name}: exit {r.returncode}, expected {rc} (stderr: {r.stderr.strip()[-200:]})")
        return
    if stdout is not None and r.stdout != stdout:
        errors.append(f"{name}: stdout differs\n--- got\n{r.stdout[:400]}\n--- expected\n{stdout[:400]}")
    if stderr_has is not None and stderr_has not in r.stderr:
        errors.append(f"{name}: stderr lacks {stderr_has!r}: {r.stderr!r}")

def lines(l): return "".join(x + "\n" for x in l)

e = ref([A, B], level="WARN"); assert e
case("level", ["--level", "warn", A, B], 0, lines(e))
e = ref([A, B], since="2024-03-11T10:00:00Z", until="2024-03-12", comps={"db", "auth"}); assert e
case("window+components", ["--since", "2024-03-11T10:00:00Z", "--until", "2024-03-12", "--component", "db", "--component", "auth", A, B], 0, lines(e))
e = ref([B, A], since="2024-03-12T09:00:00Z"); assert e
case("since only, file order", ["--since", "2024-03-12T09:00:00Z", B, A], 0, lines(e))
e = ref([A, B], level="ERROR", comps={"db"})
case("count", ["--count", "--level", "ERROR", "--component", "db", A, B], 0 if e else 1, f"{len(e)}\n")
case("until boundary", ["--until", "2024-03-11T08:04:22Z", A], 0, lines(ref([A], until="2024-03-11T08:04:22Z")))
case("since boundary", ["--since", "2024-03-12T13:45:00Z", "--until", "2024-03-12T14:00:00Z", B], 0 if ref([B], since="2024-03-12T13:45:00Z", until="2024-03-12T14:00:00Z") else 1,
     lines(ref([B], since="2024-03-12T13:45:00Z", until="2024-03-12T14:00:00Z")))
case("no match", ["--component", "nosuch", A, B], 1, "")
case("no match count", ["--count", "--since", "2030-01-01", A], 1, "0\n")
case("bad level", ["--level", "LOUD", A], 2, "")
case("bad timestamp", ["--since", "yesterday", A], 2, "")
case("bad timestamp 2", ["--until", "2024-03-11 10:00", A], 2, "")
case("no files", ["--level", "INFO"], 2, "")
e = ref([A], level="ERROR")
case("unreadable", [A, "/nonexistent/x.log", "--level", "error"], 3, lines(e), "logq: cannot read /nonexistent/x.log")
case("unreadable only", ["/nonexistent/y.log"], 3, "", "logq: cannot read /nonexistent/y.log")

if errors:
    print("\n".join(errors)); sys.exit(1)
print("all cases ok")
