"""`modularrsi run` end to end: real Harbor trials in LocalSandbox with the sim model."""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from harbor.utils.trajectory_validator import TrajectoryValidator
from testutil import REPO

from modularrsi.rollouts.results import RunResults

POOL = REPO / "tasks" / "pool"
CLI = [sys.executable, "-m", "modularrsi.cli"]
SMALL = ["crm-contacts-dedup-by-email", "argparse-logq-cli", "sqlite-monthly-category-revenue"]


def run_cli(*args, timeout=900, env=None):
    return subprocess.run([*CLI, *args], capture_output=True, text=True, timeout=timeout,
                          env={**os.environ, "COLUMNS": "200", **(env or {})})


def task_args(names):
    return [a for n in names for a in ("--tasks", str(POOL / n))]


def test_run_writes_valid_results_and_atif_trajectories(tmp_path):
    out = tmp_path / "run"
    result = run_cli("run", *task_args(SMALL[:2]), "-k", "2", "-n", "4", "--out", str(out))
    assert result.returncode == 0, result.stderr[-3000:]
    assert "sim: a simulated model" in result.stdout
    results = RunResults.model_validate_json((out / "results.json").read_text())
    assert results.simulated and results.overall.tasks == 2 and len(results.attempts) == 4
    assert {a.environment for a in results.attempts} == {"local"}  # --env auto: the shipped tasks fit LocalSandbox
    assert results.environments() == "local 4" and re.search(r"environments\s+.\s+local 4", result.stdout)
    assert {p.name for p in (out / "trials").iterdir()} == {f"{n}__a{i}" for n in SMALL[:2] for i in range(2)}
    for path in (out / "trials").glob("*/agent/trajectory.json"):
        validator = TrajectoryValidator()
        assert validator.validate(path), validator.errors
        purposes = {(s.get("extra") or {}).get("purpose") for s in json.loads(path.read_text())["steps"]}
        assert "instruction" in purposes and "observation" in purposes
    lock = json.loads((out / "lock.json").read_text())
    assert lock["generation"].startswith("g") and len(lock["attempts"]) == 4 and lock["environment"] == "auto"
    assert json.loads((out / "state.json").read_text())["status"] == "done"


def test_malformed_generation_is_refused_before_any_trial(tmp_path):
    import shutil

    from modularrsi.harness import BASELINE

    gen = tmp_path / "gen"
    shutil.copytree(BASELINE, gen)
    (gen / "modules" / "context" / "summarize_on_pressure.py").write_text("import socket\n")
    out = tmp_path / "run"
    result = run_cli("run", *task_args(SMALL[:1]), "--generation", str(gen), "--out", str(out))
    assert result.returncode == 2
    assert "forbidden import 'socket'" in result.stderr and "summarize_on_pressure.py" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
    assert not (out / "trials").exists()


def finished(out: Path) -> list[Path]:
    return sorted((out / "trials").glob("*/result.json")) if (out / "trials").exists() else []


def test_resume_after_kill_minus_9_reuses_and_completes(tmp_path):
    out = tmp_path / "run"
    proc = subprocess.Popen([*CLI, "run", *task_args(SMALL), "-k", "2", "-n", "1", "--out", str(out)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    deadline = time.monotonic() + 600
    while len(finished(out)) < 2 and time.monotonic() < deadline and proc.poll() is None:
        time.sleep(0.2)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    done_before = {p.parent.name: p.stat().st_mtime_ns for p in finished(out)}
    assert 2 <= len(done_before) < 6
    result = run_cli("run", "--resume", str(out))
    assert result.returncode == 0, result.stderr[-3000:]
    after = {p.parent.name: p.stat().st_mtime_ns for p in finished(out)}
    assert len(after) == 6
    assert all(after[name] == mtime for name, mtime in done_before.items()), "finished attempts were re-run"
    results = RunResults.model_validate_json((out / "results.json").read_text())
    assert sorted((a.task, a.attempt) for a in results.attempts) == sorted((n, i) for n in SMALL for i in range(2))
    assert f"reused {len(done_before)}" in result.stdout


def test_dataset_passes_through_harbor_registry(tmp_path):
    registry = tmp_path / "registry.json"
    registry.write_text(json.dumps([{"name": "mini", "version": "1.0", "description": "two pool tasks",
                                     "tasks": [{"name": n, "path": str(POOL / n)} for n in SMALL[:2]]}]))
    out = tmp_path / "run"
    result = run_cli("run", "--dataset", "mini@1.0", "--registry-path", str(registry), "-k", "1", "--out", str(out))
    assert result.returncode == 0, result.stderr[-3000:]
    results = RunResults.model_validate_json((out / "results.json").read_text())
    assert sorted(p.task for p in results.per_task) == sorted(SMALL[:2])


def test_unknown_dataset_is_a_one_line_error(tmp_path):
    registry = tmp_path / "registry.json"
    registry.write_text("[]")
    result = run_cli("run", "--dataset", "nope@1", "--registry-path", str(registry), "--out", str(tmp_path / "r"))
    assert result.returncode == 2 and "Dataset nope not found" in result.stderr


def test_api_key_never_lands_in_the_run_directory(tmp_path):
    from modularrsi.offline.fake_server import FakeOpenAIServer

    secret = "sk-planted-9f8e7d6c5b4a"
    done = json.dumps({"analysis": "a", "plan": "p", "commands": [], "task_complete": True})
    with FakeOpenAIServer([done, done]) as server:
        out = tmp_path / "run"
        config = tmp_path / "config.yaml"
        config.write_text(f"tasks: [{POOL / SMALL[0]}]\nk: 1\nroles: {{agent: {{model: openai/fake-model, "
                          f"api_base: '{server.base_url}', api_key_env: MODULARRSI_TEST_KEY}}}}\n")
        result = run_cli("run", "--config", str(config), "--out", str(out), env={"MODULARRSI_TEST_KEY": secret})
        assert result.returncode == 0, result.stderr[-3000:]
        assert server.headers and any(secret in str(h) for h in server.headers)  # it was really used
    leaked = [p for p in out.rglob("*") if p.is_file() and secret.encode() in p.read_bytes()]
    assert leaked == []


def test_the_agent_roles_reply_cap_reaches_every_request_of_a_trial(tmp_path):
    """``roles.agent.max_output_tokens`` is sent as max_tokens on every agent call inside the trial (an
    uncapped reply of a slow local model can run for minutes)."""
    from modularrsi.offline.fake_server import FakeOpenAIServer

    done = json.dumps({"analysis": "a", "plan": "p", "commands": [], "task_complete": True})
    with FakeOpenAIServer(responder=lambda request: done) as server:
        config = tmp_path / "config.yaml"
        config.write_text(f"tasks: [{POOL / SMALL[0]}]\nk: 2\nroles:\n  agent:\n    model: openai/fake-model\n"
                          f"    api_base: '{server.base_url}'\n    api_key_env: MODULARRSI_TEST_KEY\n"
                          "    max_output_tokens: 64\n    max_retries: 0\n")
        result = run_cli("run", "--config", str(config), "--out", str(tmp_path / "run"),
                         env={"MODULARRSI_TEST_KEY": "k"})
        assert result.returncode == 0, result.stderr[-3000:]
        assert len(server.requests) >= 2 and {r.get("max_tokens") for r in server.requests} == {64}


def test_k3_attempts_of_a_real_model_are_three_separate_attempts_not_one_cached_answer(tmp_path):
    """Each of 3 attempts (one at a time) asks the model itself; an attempt re-run on resume is answered
    from the cache (same task, attempt index and seed), so the resumed run asks nothing again."""
    from modularrsi.offline.fake_server import FakeOpenAIServer

    done = json.dumps({"analysis": "a", "plan": "p", "commands": [], "task_complete": True})
    with FakeOpenAIServer(responder=lambda request: done) as server:
        config = tmp_path / "config.yaml"
        config.write_text(f"tasks: [{POOL / SMALL[0]}]\nk: 3\nconcurrency: 1\nroles: {{agent: {{model: "
                          f"openai/fake-model, api_base: '{server.base_url}', api_key_env: MODULARRSI_TEST_KEY}}}}\n")
        out = tmp_path / "run"
        result = run_cli("run", "--config", str(config), "--out", str(out), env={"MODULARRSI_TEST_KEY": "k"})
        assert result.returncode == 0, result.stderr[-3000:]
        firsts = [r for r in server.requests if len(r["messages"]) == 1]
        assert len(firsts) == 3  # each attempt asked the model itself
        asked = len(server.requests)
        trials = sorted(p.name for p in (out / "trials").iterdir())
        assert trials == [f"{SMALL[0]}__a{i}" for i in range(3)]
        for trial in trials:
            episode = json.loads((out / "trials" / trial / "agent" / "episode.json").read_text())
            assert episode["model_calls"] >= 1
        shutil.rmtree(out / "trials" / trials[1])  # this attempt is re-run on resume: answered from the cache
        again = run_cli("run", "--resume", str(out), env={"MODULARRSI_TEST_KEY": "k"})
        assert again.returncode == 0, again.stderr[-3000:]
        assert len(server.requests) == asked


@pytest.mark.slow
def test_sim_on_the_pool_gives_a_mixed_share_in_target(tmp_path):
    """Acceptance: gen_0 with sim at K=3 on tasks/pool: 30–50 % of tasks mixed, some all-pass, some all-fail."""
    out = tmp_path / "pool"
    result = run_cli("run", "--tasks", str(POOL), "-k", "3", "-n", "8", "--out", str(out), timeout=3000)
    assert result.returncode == 0, result.stderr[-3000:]
    o = RunResults.model_validate_json((out / "results.json").read_text()).overall
    assert 0.30 <= o.mixed_share <= 0.50, o
    assert o.all_pass_share > 0 and o.all_fail_share > 0


def test_budget_cap_stops_the_run_cleanly_and_resume_continues(tmp_path):
    out = tmp_path / "run"
    result = run_cli("run", *task_args(SMALL[:2]), "-k", "2", "-n", "1", "--max-tokens", "3000", "--out", str(out))
    assert result.returncode == 3  # stopped on purpose: exit 3, not a user error (2)
    assert "budget stop: token cap reached" in result.stderr and f"--resume {out.resolve()}" in result.stderr
    state = json.loads((out / "state.json").read_text())
    assert state["status"] == "stopped_budget" and 0 < state["attempts_done"] < 4
    resumed = run_cli("run", "--resume", str(out), "--max-tokens", "100000000")
    assert resumed.returncode == 0, resumed.stderr[-2000:]
    assert json.loads((out / "state.json").read_text())["status"] == "done"


def test_manifest_train_split_is_run_and_disjointness_is_enforced(tmp_path):
    from modularrsi.tasks.manifest import PoolManifest, Selection, TaskEntry, save_manifest

    manifest = PoolManifest(pool=[str(POOL)], tasks={n: TaskEntry(path=str(POOL / n)) for n in SMALL},
                            selection=Selection(distribution="uniform", n=2, seed=0, train=SMALL[:2]))
    path = tmp_path / "manifest.json"
    digest = save_manifest(path, manifest)
    out = tmp_path / "evolve-like"
    result = run_cli("run", "--tasks", str(POOL), "--manifest", str(path), "-k", "1", "--out", str(out))
    assert result.returncode == 0, result.stderr[-2000:]
    lock = json.loads((out / "lock.json").read_text())
    assert sorted(t["name"] for t in lock["tasks"]) == sorted(SMALL[:2])
    assert lock["manifests"]["evolved_on"] == digest
    refused = run_cli("run", *task_args(SMALL[1:]), "--disjoint-from", str(path), "--out", str(tmp_path / "e"))
    assert refused.returncode == 2
    assert f"refusing to evaluate on 1 task(s) that {path} evolved on (e.g. {SMALL[1]})" in refused.stderr
    ok = run_cli("run", *task_args(SMALL[2:]), "--disjoint-from", str(path), "-k", "1", "--out", str(tmp_path / "h"))
    assert ok.returncode == 0, ok.stderr[-2000:]
    assert json.loads((tmp_path / "h" / "lock.json").read_text())["manifests"]["disjoint_from"] == {str(path): digest}


def test_a_task_that_cannot_start_is_an_invalid_attempt_not_a_crash(tmp_path, task_factory):
    broken = task_factory(name="needs-alpine", dockerfile="FROM alpine:3.19\nWORKDIR /app\n")
    good = task_factory(name="fine")
    out = tmp_path / "run"
    result = run_cli("run", "--tasks", str(broken), "--tasks", str(good), "-k", "1", "--out", str(out),
                     "--env", "local")
    assert result.returncode == 0, result.stderr[-2000:]
    results = RunResults.model_validate_json((out / "results.json").read_text())
    rows = {a.task: a for a in results.attempts}
    assert rows["needs-alpine"].reward is None and "does not map onto this host" in rows["needs-alpine"].error
    assert rows["needs-alpine"].environment == rows["fine"].environment == "local"
    assert results.overall.invalid_attempts == 1


def test_a_function_that_crashes_is_its_generations_scored_failure_not_an_invalid_attempt(tmp_path):
    """Were a crash invalid, a library whose code fails on hard tasks would drop exactly those from its Acc."""
    from staging import staged

    source = (REPO / "src/modularrsi/harness/baseline/modules/observation/limit_output.py").read_text()
    crashing = staged(tmp_path, {"observation/limit_output": source.replace(
        "    limit = ctx.params", "    raise KeyError('evolved code failed')\n    limit = ctx.params")})
    out = tmp_path / "run"
    result = run_cli("run", *task_args(SMALL[:1]), "--generation", str(crashing), "--model", "sim:perfect",
                     "-k", "1", "--out", str(out))
    assert result.returncode == 0, result.stderr[-2000:]
    results = RunResults.model_validate_json((out / "results.json").read_text())
    [row] = results.attempts
    assert "FunctionError" in (row.error or "") and row.invalid is None and row.reward == 0.0
    assert results.overall.invalid_attempts == 0 and results.overall.acc == 0.0
