"""Attempts per hour of the local model at concurrency 1, 2 and 4 on the same tasks, resumable.

    python bench/small_tier/speed.py [--tasks T...] [--levels 1 2 4] [--out runs/small-tier/speed]

One ``modularrsi run`` of gen_0 per concurrency level on the same small-tier tasks (K=1 each, the
settings of ``bench/small_tier/agent.yaml``), against whatever server answers on 127.0.0.1:8081 (start
it as ``bench/small_tier/run.sh`` does, with the slots and speculative decoding to measure). Each
level's run directory is ``OUT/c<level>``; running again finishes an interrupted level and reuses the
finished ones. Printed per level, from the trials themselves (``replies.py``): attempts per hour of wall
time, completion tokens per hour (steadier than attempts: the model's attempts differ in length), the
prefix-cache share, and both rates as ratios to the lowest level of the same invocation.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path

from replies import attempt, summary, trials_under

ROOT = Path(__file__).resolve().parents[2]
TASKS = ("csv-sum-paid-invoices", "git-init-first-commit", "csv-dedupe-signups", "deploy-scripts-exec-bits")


def run_level(level: int, tasks: list[str], out: Path) -> Path:
    run_dir = out / f"c{level}"
    where = ["--resume", str(run_dir)] if (run_dir / "config.yaml").is_file() else ["--out", str(run_dir)]
    command = [str(ROOT / ".venv" / "bin" / "modularrsi"), "run", "--config", str(ROOT / "bench/small_tier/agent.yaml"),
               "--tasks", *[str(ROOT / "tasks/small/pool" / t) for t in tasks], "-k", "1", "-n", str(level),
               "--env", "local", *where]
    env = {**os.environ, "LITELLM_LOCAL_MODEL_COST_MAP": "True", "HARBOR_TELEMETRY": "0",
           "LOCAL_MODEL_KEY": os.environ.get("LOCAL_MODEL_KEY", "local")}
    subprocess.run(command, check=True, env=env, cwd=ROOT)
    return run_dir


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tasks", nargs="+", default=list(TASKS), help="task names under tasks/small/pool")
    parser.add_argument("--levels", nargs="+", type=int, default=[1, 2, 4])
    parser.add_argument("--out", type=Path, default=ROOT / "runs" / "small-tier" / "speed")
    args = parser.parse_args()
    rows = []
    for level in sorted(args.levels):
        run_dir = run_level(level, args.tasks, args.out)
        figures = summary([row for trial in trials_under(run_dir) if (row := attempt(trial, 1024))])
        tokens_per_hour = figures["completion_tokens_per_attempt"] * figures["attempts"] / figures["wall_hours"]
        rows.append((level, figures, tokens_per_hour))
    base = rows[0]
    print(f"{'level':>5} {'attempts':>8} {'att/h':>7} {'ratio':>6} {'tok/h':>8} {'ratio':>6} {'cached':>6} "
          f"{'passed':>6}")
    for level, figures, tokens_per_hour in rows:
        print(f"{level:>5} {figures['attempts']:>8} {figures['attempts_per_hour']:>7.2f} "
              f"{figures['attempts_per_hour'] / base[1]['attempts_per_hour']:>6.2f} {tokens_per_hour:>8.0f} "
              f"{tokens_per_hour / base[2]:>6.2f} {figures['prefix_cached_share']:>6.3f} {figures['passed']:>6}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
