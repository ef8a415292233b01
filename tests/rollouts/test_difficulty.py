"""`tasks difficulty`: Wilson intervals, and real sim runs on shipped tasks that resume when re-run."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from testutil import REPO

from modularrsi.cli.difficulty import default_manifest
from modularrsi.rollouts.difficulty import (
    model_slug,
    parse_models,
    split_concurrency,
    update_rates,
    wilson_interval,
)
from modularrsi.tasks.manifest import Exclusion, PoolManifest, TaskEntry, load_manifest, save_manifest

SHIPPED = ["crm-contacts-dedup-by-email", "argparse-logq-cli"]
EXCLUDED = "sqlite-monthly-category-revenue"
RUNNER = ("import typer, sys; from modularrsi.cli.difficulty import command; "
          "from modularrsi.util.outbound import apply_offline_defaults; apply_offline_defaults(); typer.run(command)")


def run_cli(*args):
    return subprocess.run([sys.executable, "-c", RUNNER, *map(str, args)], capture_output=True, text=True,
                          timeout=600, env={**os.environ, "COLUMNS": "200"})


def test_wilson_interval_matches_known_values():
    # 3 of 8: the textbook Wilson 95 % interval is [0.1368, 0.6943] (z = 1.96).
    low, high = wilson_interval(3, 8)
    assert low == pytest.approx(0.13684, abs=1e-4) and high == pytest.approx(0.69426, abs=1e-4)
    assert wilson_interval(0, 10) == pytest.approx((0.0, 0.27753), abs=1e-4)
    assert wilson_interval(10, 10) == pytest.approx((0.72247, 1.0), abs=1e-4)
    assert wilson_interval(0, 0) is None


def test_rates_are_pooled_over_every_recorded_model():
    entry = TaskEntry(path="p", success={"a": {"attempts": 4, "passes": 1}, "b": {"attempts": 4, "passes": 2}})
    update_rates(entry)
    assert entry.success_rate == 0.375 and entry.success_ci95 == [0.1368, 0.6943]
    entry.success = {}
    update_rates(entry)
    assert entry.success_rate is None and entry.success_ci95 is None


def test_models_flags_and_defaults(tmp_path):
    assert parse_models(" sim, sim:perfect,,sim ") == ["sim", "sim:perfect"]
    with pytest.raises(ValueError, match=r"--models ' , ': give at least one model"):
        parse_models(" , ")
    assert model_slug("sim:perfect") == "sim-perfect"
    assert model_slug("scripted:/x/y/replies.json") == "scripted-replies.json"
    assert model_slug("openai/gpt-4o-mini") == "openai-gpt-4o-mini"
    assert split_concurrency(8, 3) == [3, 3, 2] and split_concurrency(1, 2) == [1, 1]
    assert default_manifest([tmp_path]) == tmp_path / "manifest.json"
    with pytest.raises(ValueError, match="give --manifest FILE"):
        default_manifest([tmp_path, tmp_path / "other"])


def trial_results(out: Path) -> dict[str, int]:
    return {str(p.relative_to(out)): p.stat().st_mtime_ns for p in out.glob("*/trials/*/result.json")}


def test_measures_shipped_tasks_and_resumes_reusing_finished_trials(tmp_path):
    pool = tmp_path / "pool"
    for name in [*SHIPPED, EXCLUDED]:
        shutil.copytree(REPO / "tasks" / "pool" / name, pool / name)
    before = PoolManifest()
    before.exclude(Exclusion(task=EXCLUDED, reason="test", source="manual"))
    save_manifest(pool / "manifest.json", before)
    out = tmp_path / "out"
    args = [pool, "--models", "sim,sim:perfect", "-k", 2, "-n", 8, "--out", out]

    first = run_cli(*args)
    assert first.returncode == 0, first.stderr[-3000:]
    assert "sim:perfect" in first.stdout and "Wilson" in first.stdout
    manifest = load_manifest(pool / "manifest.json")
    for name in SHIPPED:
        entry = manifest.tasks[name]
        assert entry.success["sim:perfect"] == {"attempts": 2, "passes": 2}
        assert entry.success["sim"]["attempts"] == 2
        passes = 2 + entry.success["sim"]["passes"]
        assert entry.success_rate == passes / 4
        assert entry.success_ci95 == [round(v, 4) for v in wilson_interval(passes, 4)]
        assert entry.path == str(pool / name) and entry.category != "uncategorised"
    assert not manifest.tasks[EXCLUDED].success and manifest.excluded() == {EXCLUDED}
    assert manifest.pool == [str(pool)]
    report = json.loads((out / "difficulty.json").read_text())
    assert report["simulated"] and {r["model"] for r in report["runs"]} == {"sim", "sim:perfect"}
    assert {row["task"]: row["success"]["sim:perfect"]["rate"] for row in report["tasks"]} == dict.fromkeys(SHIPPED, 1)
    done = trial_results(out)
    assert len(done) == 8 and not any(EXCLUDED in p for p in done)

    # An interrupted run: one trial of each model never finished (no result.json).
    unfinished = [f"sim/trials/{SHIPPED[0]}__a1/result.json", f"sim-perfect/trials/{SHIPPED[1]}__a0/result.json"]
    for rel in unfinished:
        (out / rel).unlink()
    again = run_cli(*args)
    assert again.returncode == 0, again.stderr[-3000:]
    after = trial_results(out)
    assert set(after) == set(done)
    assert all(after[p] == mtime for p, mtime in done.items() if p not in unfinished), "finished trials were re-run"
    assert all(after[p] != done[p] for p in unfinished)
    assert "sim: 4 attempts (3 reused" in again.stdout and "sim:perfect: 4 attempts (3 reused" in again.stdout
    resumed = load_manifest(pool / "manifest.json")
    assert all(resumed.tasks[n].success["sim:perfect"] == {"attempts": 2, "passes": 2} for n in SHIPPED)

    other_seed = run_cli(*args, "--seed", 5)
    assert other_seed.returncode == 2 and len(other_seed.stderr.strip().splitlines()) == 1
    assert f"{out / 'sim' / 'config.yaml'}: made with seed=0, this invocation asks seed=5" in other_seed.stderr


def test_bad_input_is_a_one_line_error(tmp_path):
    result = run_cli(tmp_path / "nothing", "--models", "sim")
    assert result.returncode == 2
    assert result.stderr.strip() == f"error: give --manifest FILE: the default POOL/manifest.json needs exactly " \
                                    f"one directory of tasks, got {tmp_path / 'nothing'}"
    (tmp_path / "empty").mkdir()
    result = run_cli(tmp_path / "empty", "--models", "sim", "--out", tmp_path / "out")
    assert result.returncode == 2 and result.stderr.strip() == (
        f"error: {tmp_path / 'empty'}: no task in it (a task is a directory with a task.toml)")


def test_a_real_model_is_measured_with_its_endpoint_key_and_temperature_from_config(tmp_path):
    """`--config` gives every model's run its settings: the fake server gets the temperature, the key and the
    turn limit the file names; the manifest records the success under the model's name."""
    from modularrsi.offline.fake_server import FakeOpenAIServer

    pool = tmp_path / "pool"
    shutil.copytree(REPO / "tasks" / "small" / "pool" / "package-release-tag", pool / "package-release-tag")
    done = json.dumps({"analysis": "a", "plan": "p", "commands": [], "task_complete": True})
    with FakeOpenAIServer(responder=lambda request: done) as server:
        config = tmp_path / "model.yaml"
        config.write_text(f"max_turns: 3\nroles:\n  agent: {{model: hosted_vllm/tiny, api_base: '{server.base_url}',"
                          " api_key_env: MODULARRSI_DIFF_KEY, temperature: 0.3, max_retries: 0}\n")
        result = subprocess.run([sys.executable, "-c", RUNNER, str(pool), "--config", str(config), "-k", "2", "-n",
                                 "2", "--out", str(tmp_path / "out")], capture_output=True, text=True, timeout=600,
                                env={**os.environ, "COLUMNS": "200", "MODULARRSI_DIFF_KEY": "sk-diff"})
        assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-2000:]
        assert server.requests and {r.get("temperature") for r in server.requests} == {0.3}
        assert all("sk-diff" in str(h) for h in server.headers)
    entry = load_manifest(pool / "manifest.json").tasks["package-release-tag"]
    assert entry.success == {"hosted_vllm/tiny": {"attempts": 2, "passes": 0}}  # it claimed done, did nothing
    run = tmp_path / "out" / model_slug("hosted_vllm/tiny")
    assert yaml.safe_load((run / "config.yaml").read_text())["max_turns"] == 3


def test_measurements_carry_over_in_the_manifest_and_are_saved_task_by_task(tmp_path):
    """A long measurement spans machines: only the manifest travels. Each task is written to it as soon as its
    attempts are done; a new machine (no run directory) measures only what the manifest lacks under the same
    settings, and other settings measure again."""
    pool = tmp_path / "pool"
    for name in SHIPPED:
        shutil.copytree(REPO / "tasks" / "pool" / name, pool / name)
    args = [pool, "--models", "sim:perfect", "-k", 2, "-n", 1]
    first = run_cli(*args, "--out", tmp_path / "machine1")
    assert first.returncode == 0, first.stderr[-3000:]
    measured = load_manifest(pool / "manifest.json")
    fingerprints = {measured.tasks[n].measured_with["sim:perfect"] for n in SHIPPED}
    assert len(fingerprints) == 1 and next(iter(fingerprints)).startswith("sha256:")

    # Machine 2 lost one task's entry (say the run was cut off before it finished) and has no run directory.
    measured.tasks[SHIPPED[1]].success = {}
    measured.tasks[SHIPPED[1]].measured_with = {}
    save_manifest(pool / "manifest.json", measured)
    second = run_cli(*args, "--out", tmp_path / "machine2")
    assert second.returncode == 0, second.stderr[-3000:]
    assert "sim:perfect: 2 attempts (0 reused, 0 invalid: left out of the rates; 1 tasks carried over" in second.stdout
    made = {p.parent.name for p in (tmp_path / "machine2").glob("*/trials/*/result.json")}
    assert made == {f"{SHIPPED[1]}__a0", f"{SHIPPED[1]}__a1"}
    after = load_manifest(pool / "manifest.json")
    assert all(after.tasks[n].success["sim:perfect"] == {"attempts": 2, "passes": 2} for n in SHIPPED)

    everything = run_cli(*args, "--out", tmp_path / "machine3")  # nothing left to measure
    assert everything.returncode == 0 and "0 attempts" in everything.stdout
    assert "2 tasks carried over" in everything.stdout
    assert not (tmp_path / "machine3" / "sim-perfect" / "trials").exists()

    other = tmp_path / "other.yaml"
    other.write_text("max_turns: 3\n")
    remeasured = run_cli(*args, "--config", other, "--out", tmp_path / "machine4")
    assert remeasured.returncode == 0 and "carried over" not in remeasured.stdout
    assert len(list((tmp_path / "machine4").glob("*/trials/*/result.json"))) == 4


def test_each_task_reaches_the_manifest_when_its_attempts_finish(tmp_path):
    """The manifest on disk holds a task as soon as its attempts are done, while the others still run."""
    import asyncio

    from modularrsi.rollouts.difficulty import DifficultyConfig, measure

    pool = tmp_path / "pool"
    for name in SHIPPED:
        shutil.copytree(REPO / "tasks" / "pool" / name, pool / name)
    seen: list[tuple[str, PoolManifest]] = []

    def observer(event, data):
        if event == "finished":
            seen.append((data["attempt"].task, load_manifest(pool / "manifest.json")))

    config = DifficultyConfig(pools=[pool], models=["sim:perfect"], n=2, concurrency=1, out=tmp_path / "out",
                              manifest=pool / "manifest.json")
    asyncio.run(measure(config, [observer]))
    assert len(seen) == 4
    first, on_disk = seen[1]
    assert seen[0][0] == first  # concurrency 1: a task's attempts run one after the other
    assert "sim:perfect" not in seen[0][1].tasks[first].success
    assert on_disk.tasks[first].success["sim:perfect"] == {"attempts": 2, "passes": 2}
    other = next(n for n in SHIPPED if n != first)
    assert "sim:perfect" not in on_disk.tasks[other].success


def test_some_tasks_of_a_pool_first_then_the_rest_in_the_same_run_directory(tmp_path):
    """Tasks named one by one are measured first (their pool is what the manifest records); the whole pool
    afterwards, with the same --out, measures only the others."""
    pool = tmp_path / "pool"
    for name in SHIPPED:
        shutil.copytree(REPO / "tasks" / "pool" / name, pool / name)
    args = ["--models", "sim:perfect", "-k", 2, "-n", 2, "--out", tmp_path / "out",
            "--manifest", pool / "manifest.json"]
    first = run_cli(pool / SHIPPED[1], *args)
    assert first.returncode == 0, first.stderr[-3000:]
    manifest = load_manifest(pool / "manifest.json")
    assert manifest.pool == [str(pool)] and set(manifest.tasks) == {SHIPPED[1]}
    rest = run_cli(pool, *args)
    assert rest.returncode == 0, rest.stderr[-3000:]
    assert "sim:perfect: 4 attempts (2 reused" in " ".join(rest.stdout.split())  # the first task's not re-run
    after = load_manifest(pool / "manifest.json")
    assert after.pool == [str(pool)]
    assert all(after.tasks[n].success["sim:perfect"] == {"attempts": 2, "passes": 2} for n in SHIPPED)


def test_attempts_cut_by_stopping_the_run_are_run_again_not_counted_invalid(tmp_path):
    """Stopping a measurement (Ctrl-C) leaves the running trials with a CancelledError result; a resumed
    measurement runs them again, so the task is measured with all its attempts valid."""
    pool = tmp_path / "pool"
    shutil.copytree(REPO / "tasks" / "pool" / SHIPPED[0], pool / SHIPPED[0])
    args = [pool, "--models", "sim:perfect", "-k", 2, "-n", 2, "--out", tmp_path / "out"]
    first = run_cli(*args)
    assert first.returncode == 0, first.stderr[-3000:]
    cut = tmp_path / "out" / "sim-perfect" / "trials" / f"{SHIPPED[0]}__a1" / "result.json"
    result = json.loads(cut.read_text())
    result["exception_info"] = {"exception_type": "CancelledError", "exception_message": "",
                                "exception_traceback": "", "occurred_at": result["finished_at"]}
    result["verifier_result"] = None
    cut.write_text(json.dumps(result))
    manifest = load_manifest(pool / "manifest.json")
    manifest.tasks[SHIPPED[0]].success, manifest.tasks[SHIPPED[0]].measured_with = {}, {}
    save_manifest(pool / "manifest.json", manifest)  # as a stopped run leaves it: the task not yet recorded
    again = run_cli(*args)
    assert again.returncode == 0, again.stderr[-3000:]
    assert "sim:perfect: 2 attempts (1 reused, 0 invalid" in " ".join(again.stdout.split())
    assert json.loads(cut.read_text())["exception_info"] is None
    assert load_manifest(pool / "manifest.json").tasks[SHIPPED[0]].success["sim:perfect"] == {"attempts": 2,
                                                                                              "passes": 2}
