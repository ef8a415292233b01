"""`modularrsi tasks validate` end to end: real Harbor trials in LocalSandbox."""

import json
import os
import subprocess
import sys
from pathlib import Path

from testutil import EVOLUTION_POOLS, HELDOUT_POOLS, REPO

CLI = [sys.executable, "-m", "modularrsi.cli"]


def run_cli(*args, cwd=None):
    env = {**os.environ, "COLUMNS": "200"}
    return subprocess.run([*CLI, *args], capture_output=True, text=True, cwd=cwd, env=env, timeout=600)


def test_good_and_bad_tasks_are_reported_and_others_still_run(task_factory, tmp_path):
    good = task_factory(name="good")
    task_factory(name="no-reward", test_sh="#!/bin/bash\necho checking\n")
    task_factory(name="too-easy", test_sh="#!/bin/bash\necho 1 > /logs/verifier/reward.txt\n")
    broken = task_factory(name="broken-toml")
    (broken / "task.toml").write_text("[environment\n")
    out = tmp_path / "out"
    result = run_cli("tasks", "validate", str(good.parent), "--out", str(out), "-n", "4")
    assert result.returncode == 4
    lines = result.stdout.splitlines()
    assert "ok good" in lines
    assert any(line.startswith("FAIL no-reward — no-reward: tests/test.sh wrote no usable /logs/verifier/reward.txt "
                               "(oracle run)") for line in lines)
    assert "FAIL too-easy — too-easy: nop got reward 1, expected 0" in lines
    assert any(line.startswith("FAIL broken-toml — broken-toml: task.toml: not valid TOML") for line in lines)
    report = json.loads((out / "validation.json").read_text())
    assert (report["passed"], report["failed"]) == (1, 3)


def test_missing_path_is_a_one_line_error(tmp_path):
    result = run_cli("tasks", "validate", str(tmp_path / "nothing"))
    assert result.returncode == 2
    assert result.stderr.strip() == f"error: {tmp_path / 'nothing'}: no such task or task directory"


def test_harbor_cli_runs_a_pool_task_in_local_sandbox(tmp_path):
    task = sorted((REPO / "tasks" / "pool").iterdir())[0]
    harbor = Path(sys.executable).parent / "harbor"
    result = subprocess.run(
        [str(harbor), "run", "-p", str(task), "-a", "oracle", "--env", "modularrsi.sandbox:LocalSandbox",
         "-o", str(tmp_path / "jobs")], capture_output=True, text=True, timeout=600,
        env={**os.environ, "HARBOR_TELEMETRY": "0", "LITELLM_LOCAL_MODEL_COST_MAP": "True"})
    assert result.returncode == 0, result.stderr[-2000:]
    rewards = [p.read_text().strip() for p in (tmp_path / "jobs").rglob("reward.txt")]
    assert rewards == ["1"]


def test_every_shipped_task_validates(tmp_path):
    """Acceptance: oracle 1 and nop 0 on every shipped task (both tiers, evolution and held-out)."""
    result = run_cli("tasks", "validate", *map(str, [*EVOLUTION_POOLS, *HELDOUT_POOLS]),
                     "--out", str(tmp_path / "v"), "-n", "4")
    report = json.loads((tmp_path / "v" / "validation.json").read_text())
    failures = [t["problem"] for t in report["tasks"] if not t["ok"]]
    assert failures == [] and result.returncode == 0
    assert report["passed"] >= 120
