"""A real model in the loop (opt-in: ``pytest -m real_model``; minutes to an hour on a small local model):
gen_0 attempts on easy pool tasks, and one Tool Use lane for one epoch with the model in every role. The run
must complete with all its files, and every step's outcome must be recorded (never a crash, never silence)."""

from __future__ import annotations

import json

import pytest

from modularrsi.evolve.config import EvolveConfig
from modularrsi.evolve.findings import Finding
from modularrsi.evolve.history import Change
from modularrsi.evolve.layout import RunLayout
from modularrsi.evolve.pipeline import Evolution
from modularrsi.rollouts.config import RunConfig
from modularrsi.rollouts.run import execute

pytestmark = pytest.mark.real_model
EASY = ["crm-contacts-dedup-by-email", "textkit-slugify-accents", "warehouse-low-stock-report"]


def pool(repo, names):
    return [repo / "tasks" / "pool" / name for name in names]


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


async def test_one_tool_use_lane_for_one_epoch_with_the_model_in_every_role(real_roles, tmp_path, request):
    repo = request.config.rootpath
    config = EvolveConfig(tasks=pool(repo, EASY), roles=real_roles, modules=["tool_use"], epochs=1, k=2,
                          concurrency=2, max_turns=6, max_directions=1, integration={"enabled": False},
                          editor={"max_turns": 8, "retries": 0}, gates={"anchors": 0, "max_evidence_tasks": 1})
    summary = await Evolution(config, tmp_path / "evo").run()
    layout = RunLayout(tmp_path / "evo")
    assert json.loads(layout.state.read_text())["status"] == "done" and summary["frozen_id"]
    epoch = layout.lane("tool_use").epoch(0)
    for path in (epoch.sample, epoch.root / "buckets.json", epoch.findings, epoch.directions, epoch.outcome):
        assert path.is_file(), path
    findings = [Finding.model_validate_json(line) for line in epoch.findings.read_text().splitlines() if line]
    assert sorted(f.task for f in findings) == sorted(EASY)
    for finding in findings:  # each is a diagnosis, a dropped task-logic finding or an invalid analysis
        assert finding.is_culprit or finding.divergence or finding.dropped or finding.parse_error, finding
    tried = json.loads(epoch.directions.read_text())["directions"][: config.max_directions]
    records = sorted(epoch.gates.glob("*/record.json"))
    assert len(records) == len(tried)
    for record in records:
        change = Change.model_validate_json(record.read_text())
        assert change.outcome in ("promoted", "rejected", "editor_failed")
        assert change.outcome == "promoted" or change.reason, change
