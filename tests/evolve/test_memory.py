"""Trajectory Memory: a real sim run ingested into SQLite; idempotent re-ingestion; queries; infra errors."""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

import pytest
from harbor.models.trial.result import TrialResult
from testutil import SAMPLED_TASKS

from modularrsi.evolve.memory import AttemptRecord, TrajectoryMemory, infra_error
from modularrsi.evolve.signals import Signals

TASKS = SAMPLED_TASKS  # the tasks of the shared `run_dir` fixture (tests/evolve/conftest.py)
N = 3 * len(TASKS)


def record(task: str, epoch: int, attempt: int, passed: bool, steps: int = 5, lane: str = "completion",
           infra: str | None = None) -> AttemptRecord:
    return AttemptRecord(lane=lane, epoch=epoch, generation=f"g{epoch}", task=task, attempt=attempt,
                         reward=None if infra else float(passed), passed=passed, steps=steps, tokens=100,
                         trial_dir=f"/nowhere/{task}__a{attempt}", infra_error=infra)


def rows(memory_path: Path) -> list[tuple]:
    with sqlite3.connect(memory_path) as db:
        return db.execute("SELECT * FROM attempts ORDER BY lane, epoch, task, attempt").fetchall()


def test_record_run_ingests_every_finished_trial(run_dir, tmp_path):
    with TrajectoryMemory(tmp_path / "memory.sqlite") as memory:
        records = memory.record_run(run_dir, "completion", 1, "g0")
        assert [(r.task, r.attempt) for r in records] == [(t, k) for t in sorted(TASKS) for k in range(3)]
        assert memory.attempts("completion") == records
        for r in records:
            result = json.loads((Path(r.trial_dir) / "result.json").read_text())
            episode = json.loads((Path(r.trial_dir) / "agent" / "episode.json").read_text())
            assert r.reward == result["verifier_result"]["rewards"]["reward"] and r.passed == (r.reward == 1.0)
            assert r.steps == episode["turns"] == r.signals.turns and r.signals.complete
            assert r.tokens == result["agent_result"]["n_input_tokens"] + result["agent_result"]["n_output_tokens"]
            assert r.infra_error is None and (r.lane, r.epoch, r.generation) == ("completion", 1, "g0")
        assert memory.attempts("completion", epoch=2) == [] and memory.attempts("agent_loop") == []
        assert len(memory.attempts("completion", epoch=1, task=TASKS[0])) == 3
    assert sqlite3.connect(tmp_path / "memory.sqlite").execute("PRAGMA journal_mode").fetchone()[0] == "wal"


def test_ingesting_twice_gives_the_same_rows(run_dir, tmp_path):
    path = tmp_path / "memory.sqlite"
    with TrajectoryMemory(path) as memory:
        memory.record_run(run_dir, "completion", 1, "g0")
        first = rows(path)
        memory.record_run(run_dir, "completion", 1, "g0")
        assert rows(path) == first and len(first) == N
        memory.record_run(run_dir, "completion", 2, "g1")
        assert len(rows(path)) == 2 * N


def test_interrupted_attempt_is_skipped_then_picked_up_on_resume(run_dir, tmp_path):
    run = tmp_path / "run"
    shutil.copytree(run_dir, run)
    unfinished = run / "trials" / f"{TASKS[1]}__a2"
    kept = tmp_path / "result.json.kept"
    (unfinished / "result.json").rename(kept)
    damaged = run / "trials" / f"{TASKS[0]}__a0" / "agent"
    (damaged / "episode.json").unlink()
    (damaged / "module_trace.jsonl").write_text((damaged / "module_trace.jsonl").read_text()[:-7])
    with TrajectoryMemory(tmp_path / "memory.sqlite") as memory:
        records = memory.record_run(run, "completion", 1, "g0")
        assert (TASKS[1], 2) not in {(r.task, r.attempt) for r in records} and len(records) == N - 1
        broken = next(r for r in records if (r.task, r.attempt) == (TASKS[0], 0))
        assert not broken.signals.complete and "missing episode.json" in broken.signals.notes
        kept.rename(unfinished / "result.json")  # the resumed run finished it
        assert len(memory.record_run(run, "completion", 1, "g0")) == N
        assert len(memory.attempts("completion")) == N


def test_trial_paths_inside_the_run_directory_survive_a_move(run_dir, tmp_path):
    root = tmp_path / "evolution"
    shutil.copytree(run_dir, root / "lanes" / "completion" / "epoch_1" / "rollouts")
    with TrajectoryMemory.in_run(root) as memory:
        memory.record_run(root / "lanes" / "completion" / "epoch_1" / "rollouts", "completion", 1, "g0")
    moved = tmp_path / "moved"
    root.rename(moved)
    with TrajectoryMemory.in_run(moved) as memory:
        trial = Path(memory.attempts("completion")[0].trial_dir)
        assert trial.is_relative_to(moved) and (trial / "result.json").is_file()


def test_past_pass_and_task_history(tmp_path):
    with TrajectoryMemory(tmp_path / "memory.sqlite") as memory:
        memory.add([record("t", 1, 0, True, steps=9), record("t", 1, 1, True, steps=4), record("t", 1, 2, False),
                    record("t", 2, 0, True, steps=7), record("t", 2, 1, False, steps=3),
                    record("t", 2, 2, False, infra="EnvironmentStartTimeoutError: slow"),
                    record("t", 3, 0, False), record("t", 3, 1, True, lane="tool_use")])
        assert memory.past_pass("completion", "t", 1) is None
        assert (memory.past_pass("completion", "t", 2).epoch, memory.past_pass("completion", "t", 2).attempt) == (1, 1)
        assert memory.past_pass("completion", "t", 4).epoch == 2
        assert memory.past_pass("tool_use", "t", 3) is None and memory.past_pass("completion", "u", 9) is None
        history = memory.task_history("completion", "t")
        assert [(h.epoch, h.attempts, h.valid, h.passes) for h in history] == [(1, 3, 3, 2), (2, 3, 2, 1), (3, 1, 1, 0)]
        assert history[0].mean_steps == 6 and history[0].pass_mean_steps == 6.5
        assert history[1].mean_steps == 5 and history[2].pass_mean_steps is None


def test_later_stage_tables_are_keyed_and_idempotent(tmp_path):
    with TrajectoryMemory(tmp_path / "memory.sqlite") as memory:
        first = memory.put("findings", "completion", 1, {"task": "t", "is_culprit": True}, key="t")
        again = memory.put("findings", "completion", 1, {"task": "t", "is_culprit": False}, key="t")
        memory.put("findings", "completion", 1, {"note": "unkeyed"})
        memory.put("findings", "completion", 1, {"note": "unkeyed"})
        memory.put("directions", "completion", 2, {"summary": "s"}, key="d0")
        assert first == again
        found = memory.items("findings", "completion", 1)
        assert [i.payload for i in found] == [{"task": "t", "is_culprit": False}, {"note": "unkeyed"},
                                              {"note": "unkeyed"}]
        assert memory.items("directions", "completion", 1) == [] and len(memory.items("directions", "completion")) == 1
        with pytest.raises(ValueError, match="unknown; valid: findings, directions"):
            memory.put("verdicts", "completion", 1, {})


def _variant(run_dir: Path, **changes) -> TrialResult:
    data = json.loads((run_dir / "trials" / f"{TASKS[0]}__a0" / "result.json").read_text())
    for path, value in changes.items():
        *parents, leaf = path.split("__")
        target = data
        for name in parents:
            target = target[name]
        target[leaf] = value
    return TrialResult.model_validate(data)


def _exception(kind: str) -> dict:
    return {"exception_type": kind, "exception_message": "boom\nmore", "exception_traceback": "",
            "occurred_at": "2026-01-01T00:00:00Z"}


def test_infra_errors_are_decided_from_harbor_exception_policy_and_endings(run_dir):
    assert infra_error(_variant(run_dir)) is None
    assert infra_error(_variant(run_dir, exception_info=_exception("EnvironmentStartTimeoutError"))) == \
        "EnvironmentStartTimeoutError: boom"
    assert infra_error(_variant(run_dir, exception_info=_exception("RewardFileNotFoundError"))).startswith("Reward")
    assert infra_error(_variant(run_dir, exception_info=_exception("AgentTimeoutError"))) is None
    assert infra_error(_variant(run_dir, verifier_result=None)) == "no reward: the verifier produced none"
    assert infra_error(_variant(run_dir, verifier_result=None, exception_info=_exception("SandboxLimitExceeded"))) \
        is None  # the agent's own fork bomb: a failure, not infrastructure
    assert infra_error(_variant(run_dir, agent_result__metadata__ending="model_error",
                                agent_result__metadata__ending_detail="ModelUnavailable: 503")).startswith(
        "agent ending model_error")
    assert infra_error(_variant(run_dir, agent_result__metadata__ending="model_error",
                                agent_result__metadata__ending_detail="ContextOverflow: too long")) is None


def test_records_default_to_empty_signals():
    assert record("t", 1, 0, True).signals == Signals()


def test_invalid_attempts_add_harness_crashes_and_episodes_that_never_started(run_dir):
    from modularrsi.tasks.trials import invalid_reason

    assert invalid_reason(_variant(run_dir)) is None
    crashed = _variant(run_dir, agent_result__metadata__ending="harness_error",
                       agent_result__metadata__ending_detail="FunctionError: shape raised KeyError")
    assert invalid_reason(crashed) is None  # the generation's own code failed: a scored failure of it
    assert infra_error(crashed) is None  # for diagnosis a crash is the harness's own failure
    no_runtime = _variant(run_dir, agent_result__metadata__ending="harness_error",
                          agent_result__metadata__ending_detail="RuntimeUnavailable: zygote did not start")
    assert invalid_reason(no_runtime) == "harness error: RuntimeUnavailable: zygote did not start"
    never = _variant(run_dir, agent_result__metadata={}, exception_info=_exception("FileNotFoundError"))
    assert invalid_reason(never) == "the episode never started: FileNotFoundError: boom"
    timed_out = _variant(run_dir, exception_info=_exception("AgentTimeoutError"))
    assert invalid_reason(timed_out) is None  # the agent's own failure: a fair 0
