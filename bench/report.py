"""How long `modularrsi report` takes on an evolution run of realistic size.

Builds a synthetic run directory (modularrsi.offline.synthetic: 100 evolution tasks, 3 epochs, 5 lanes,
k=3, ~30 proposals with diffs, a finding per task, lane and epoch, buckets, eval on 100 held-out
tasks, ATIF trajectories for every attempt), then times, in this process:

- baseline: json-loading every .json/.jsonl file of the run directory once (the least any report
  reading those files could do);
- report: gathering and rendering the HTML file (`write_report`), imports already done;
- command: the whole `modularrsi report RUN --out FILE` in a new process (interpreter start and imports
  included).

Usage: .venv/bin/python bench/report.py [--tasks 100] [--epochs 3] [--lanes 5] [--repeat 3]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from modularrsi.util.outbound import apply_offline_defaults

apply_offline_defaults()

from modularrsi.harness.protocols import MODULES  # noqa: E402
from modularrsi.offline.synthetic import make_run  # noqa: E402
from modularrsi.report.render import write_report  # noqa: E402


def load_all(run_dir: Path) -> int:
    """json-load every JSON and JSON-lines file under ``run_dir``; returns how many values were read."""
    count = 0
    for path in run_dir.rglob("*.json*"):
        if path.suffix == ".json":
            json.loads(path.read_text())
            count += 1
        elif path.suffix == ".jsonl":
            count += sum(1 for line in path.read_text().splitlines() if line.strip() and json.loads(line))
    return count


def timed(fn, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        fn()
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", type=int, default=100)
    parser.add_argument("--epochs", type=int, default=3)
    parser.add_argument("--lanes", type=int, default=5)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        run_dir = Path(tmp) / "run"
        started = time.perf_counter()
        make_run(run_dir, tasks=args.tasks, epochs=args.epochs, lanes=MODULES[: args.lanes])
        files = sum(1 for p in run_dir.rglob("*") if p.is_file())
        size = sum(p.stat().st_size for p in run_dir.rglob("*") if p.is_file())
        changes = len((run_dir / "history.jsonl").read_text().splitlines())
        print(f"synthetic run: {args.tasks} tasks × {args.epochs} epochs × {args.lanes} lanes, {changes} proposals, "
              f"{files} files, {size / 1e6:.1f} MB (built in {time.perf_counter() - started:.1f} s)")
        out = Path(tmp) / "report.html"
        baseline = timed(lambda: load_all(run_dir), args.repeat)
        report = timed(lambda: write_report(run_dir, out), args.repeat)
        cli = Path(sys.executable).parent / "modularrsi"
        command = timed(lambda: subprocess.run([str(cli), "report", str(run_dir), "--out", str(out)], check=True,
                                               capture_output=True), 1)
        print(f"json-load every input file (baseline): {baseline:.3f} s")
        print(f"report (gather + render, in process):  {report:.3f} s  = {report / baseline:.2f}× the baseline; "
              f"HTML {out.stat().st_size / 1e6:.2f} MB")
        print(f"`modularrsi report` command end to end: {command:.2f} s (target: under 10 s)")


if __name__ == "__main__":
    main()
