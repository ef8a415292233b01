"""A seeded sim run is a function of its config and seed: the same at concurrency 1 on a quiet machine
and at concurrency 16 with every core busy beside it (the terminal settles before it is read)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from testutil import REPO

POOL = REPO / "tasks" / "pool"

#: Pool tasks whose commands print no timings of their own (a test runner's "0.01 sec" is the machine's).
TASKS = ["argparse-logq-cli", "b64tool-wrapped-input-decode", "c-semver-compare-contract",
         "catalog-pagination-last-page", "cfgkit-multilevel-extends", "clickstream-sessionize-events",
         "crm-contacts-dedup-by-email", "decode-dropper-iocs"]
VOLATILE = ("wall_s", "run_id")


def stable(value):
    """``value`` without the fields that are the clock's (wall times, the run's own id)."""
    if isinstance(value, dict):
        return {k: stable(v) for k, v in value.items() if k not in VOLATILE}
    if isinstance(value, list):
        return [stable(v) for v in value]
    return value


def decisions(run: Path) -> dict[str, list]:
    """Each attempt's agent steps: what the model said and the commands it sent."""
    out = {}
    for path in sorted(run.glob("trials/*/agent/trajectory.json")):
        steps = json.loads(path.read_text())["steps"]
        agent = [s for s in steps if s["source"] == "agent"]
        out[path.parent.parent.name] = [(s.get("message"), s.get("tool_calls")) for s in agent]
    return out


def run(out: Path, *args: str) -> None:
    tasks = [a for t in TASKS for a in ("--tasks", str(POOL / t))]
    done = subprocess.run([sys.executable, "-m", "modularrsi.cli", "run", *tasks, "-k", "2", "--seed", "7",
                           "--env", "local", "--out", str(out), *args], capture_output=True, text=True, timeout=1200)
    assert done.returncode == 0, done.stderr[-3000:]


def busy_cores() -> list[subprocess.Popen]:
    return [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(4 * (os.cpu_count() or 2))]


def test_same_seed_same_run_at_concurrency_1_and_16_with_a_cpu_stressor_beside_it(tmp_path):
    run(tmp_path / "n1", "-n", "1")
    stressors = busy_cores()
    try:
        run(tmp_path / "n16", "-n", "16")
    finally:
        for proc in stressors:
            proc.kill()
            proc.wait()
    one, many = (json.loads((tmp_path / n / "results.json").read_text()) for n in ("n1", "n16"))
    assert stable(one) == stable(many)
    assert decisions(tmp_path / "n1") == decisions(tmp_path / "n16")
    assert len(decisions(tmp_path / "n1")) == 2 * len(TASKS) and all((POOL / t).is_dir() for t in TASKS)
