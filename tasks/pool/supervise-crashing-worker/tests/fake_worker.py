import os, signal, sys, time
state = os.environ["FAKE_STATE"]
plan = os.environ["FAKE_PLAN"].split(",")
try:
    n = int(open(state + ".count").read())
except FileNotFoundError:
    n = 0
open(state + ".count", "w").write(str(n + 1))
with open(state + ".pids", "a") as f:
    f.write(f"{os.getpid()}\n")
step = plan[min(n, len(plan) - 1)]
if step == "run":
    def on_term(signum, frame):
        open(state + ".term", "w").write("TERM\n")
        sys.exit(0)
    signal.signal(signal.SIGTERM, on_term)
    while True:
        time.sleep(0.05)
time.sleep(0.2)
sys.exit(int(step))
