"""A real model in the loop (opt-in: ``pytest -m real_model``; minutes to hours on a small local model):
gen_0 attempts on easy pool tasks, and one Tool Use lane for one epoch with the model in every role - on easy
pool tasks, and on 4 small-tier tasks calibrated for the model (their success rates measured by
``bench/small_tier/run.sh difficulty``). The run must complete with all its files, and every step's outcome
must be recorded (never a crash, never silence)."""

from __future__ import annotations

import json
import os

import pytest

from modularrsi.evolve.config import EvolveConfig
from modularrsi.evolve.findings import Finding
from modularrsi.evolve.history import History
from modularrsi.evolve.layout import RunLayout
from modularrsi.evolve.pipeline import Evolution
from modularrsi.rollouts.config import RunConfig
from modularrsi.rollouts.run import execute
from modularrsi.tasks.manifest import load_manifest

pytestmark = pytest.mark.real_model
EASY = ["crm-contacts-dedup-by-email", "textkit-slugify-accents", "warehouse-low-stock-report"]


SMALL_TIER = "bench/small_tier/results/pool-manifest.json"


def pool(repo, names):
    return [repo / "tasks" / "pool" / name for name in names]


def calibrated(repo, model: str, n: int = 4) -> list:
    """The ``n`` small-tier tasks measured for ``model`` whose success rates lie nearest 0.5 (the tasks most
    likely to give a same-task contrast), or a one-line skip."""
    entries = load_manifest(repo / SMALL_TIER).tasks
    rates = {name: e.success[model]["passes"] / e.success[model]["attempts"] for name, e in entries.items()
             if e.success.get(model, {}).get("attempts")}
    if len(rates) < n:
        pytest.skip(f"{SMALL_TIER}: {len(rates)} tasks measured for {model}, {n} needed "
                    "(bench/small_tier/run.sh difficulty)")
    return [repo / entries[name].path for name in sorted(rates, key=lambda name: (abs(rates[name] - 0.5), name))[:n]]


async def test_gen0_attempts_on_easy_tasks_are_all_recorded(real_roles, tmp_path, request):
    repo = request.config.rootpath
    config = RunConfig(tasks=pool(repo, EASY[:2]), roles=real_roles, k=1, concurrency=1, max_turns=6)
    results = await execute(config, tmp_path / "run")
    assert results.overall.attempts == 2 and len(results.attempts) == 2
    for row in results.attempts:
        assert row.reward is not None or row.error, row  # a reward, or the reason there is none
        assert row.steps >= 1
        # tokens are counted from the answers: only an episode cut by its time limit mid-reply may have none
        assert (row.input_tokens > 0 and row.output_tokens > 0) or "AgentTimeoutError" in (row.error or ""), row
    assert (tmp_path / "run" / "results.json").is_file() and (tmp_path / "run" / "lock.json").is_file()


async def evolve_one_lane(config: EvolveConfig, out) -> list[Finding]:
    """One lane for one epoch; every file written and every task's and proposal's outcome recorded. Returns
    the epoch's findings."""
    summary = await Evolution(config, out).run()
    layout = RunLayout(out)
    assert json.loads(layout.state.read_text())["status"] == "done" and summary.frozen_id
    epoch = layout.lane(config.modules[0]).epoch(0)
    for path in (epoch.sample, epoch.root / "buckets.json", epoch.findings, epoch.directions, epoch.outcome):
        assert path.is_file(), path
    names = sorted(task.name for task in config.tasks)
    assert sorted(route["task"] for route in json.loads((epoch.root / "buckets.json").read_text())["tasks"]) == names
    findings = [Finding.model_validate_json(line) for line in epoch.findings.read_text().splitlines() if line]
    assert sorted({f.task for f in findings}) <= names
    for finding in findings:  # each is a diagnosis, a dropped task-logic finding or an invalid analysis
        assert finding.is_culprit or finding.divergence or finding.dropped or finding.parse_error, finding
    tried = json.loads(epoch.directions.read_text())["directions"][: config.max_directions]
    changes = [c for c in History(layout.history).changes.values() if c.lane == config.modules[0] and c.epoch == 0]
    assert len(changes) == len(tried)
    for change in changes:
        assert change.outcome in ("promoted", "rejected", "editor_failed")
        assert change.outcome == "promoted" or change.reason, change
    return findings


async def test_one_tool_use_lane_for_one_epoch_with_the_model_in_every_role(real_roles, tmp_path, request):
    repo = request.config.rootpath
    config = EvolveConfig(tasks=pool(repo, EASY), roles=real_roles, modules=["tool_use"], epochs=1, k=2,
                          concurrency=2, max_turns=6, max_directions=1, integration={"enabled": False},
                          editor={"max_turns": 8, "retries": 0}, gates={"anchors": 0, "max_evidence_tasks": 1})
    findings = await evolve_one_lane(config, tmp_path / "evo")
    assert sorted(f.task for f in findings) == sorted(EASY)  # this model solves none: each one is diagnosed


async def test_one_lane_on_four_tasks_calibrated_for_the_model(real_roles, tmp_path, request):
    """The small tier's settings (bench/small_tier/agent.yaml: 10 turns, generous time limits); attempts at
    ``MODULARRSI_REAL_CONCURRENCY`` at once (default 2; 4 with bench/small_tier/serve.py's four slots)."""
    repo = request.config.rootpath
    config = EvolveConfig(tasks=calibrated(repo, real_roles.agent.model), roles=real_roles, modules=["tool_use"],
                          epochs=1, k=3, concurrency=int(os.environ.get("MODULARRSI_REAL_CONCURRENCY", "2")),
                          env="local", max_turns=10, timeout_multiplier=10, max_directions=1,
                          integration={"enabled": False}, editor={"max_turns": 8, "retries": 0})
    await evolve_one_lane(config, tmp_path / "evo")
