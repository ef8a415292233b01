"""The preflight catches what trials would — a missing key, a self-hosted model without its endpoint, an
environment that cannot start here — in one line before anything is written, once per command; and a
command ends in one of four documented ways (0 done, 1 a bug with its traceback, 2 a user error, 3 a
stop on purpose)."""

from __future__ import annotations

import asyncio
import json
import os

import pytest
from testutil import REPO, SAMPLED_TASKS
from typer.testing import CliRunner

from modularrsi.cli import app
from modularrsi.rollouts import preflight
from modularrsi.rollouts.config import RunConfig
from modularrsi.util.errors import EXIT_BUG, EXIT_STOPPED, EXIT_USER, Stopped, UserError

TASK = REPO / "tasks" / "pool" / "argparse-logq-cli"
GEN0 = REPO / "src" / "modularrsi" / "harness" / "baseline"
#: Every variable a provider key could come from in these tests: scrubbed so the host's own never counts.
KEYS = ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "MY_TEAM_KEY", "DAYTONA_API_KEY", "DAYTONA_JWT_TOKEN",
        "DAYTONA_ORGANIZATION_ID", "HOSTED_VLLM_API_BASE", "OPENAI_BASE_URL", "OPENAI_API_BASE")


@pytest.fixture(autouse=True)
def no_keys(monkeypatch):
    for name in KEYS:
        monkeypatch.delenv(name, raising=False)


def invoke(*args: str):
    return CliRunner().invoke(app, list(args), env={"COLUMNS": "400"})


def refused(done, *needles: str) -> str:
    lines = done.stderr.strip().splitlines()
    assert done.exit_code == EXIT_USER and len(lines) == 1 and not done.stdout.strip(), (done.stdout, done.stderr)
    for needle in needles:
        assert needle in lines[0], lines[0]
    return lines[0]


@pytest.mark.parametrize("model, settings, needles", [
    ("openai/gpt-4o-mini", {}, ("OPENAI_API_KEY not set", "export OPENAI_API_KEY=")),
    ("gpt-4o", {}, ("OPENAI_API_KEY not set",)),
    ("anthropic/claude-sonnet-4", {}, ("ANTHROPIC_API_KEY not set",)),
    ("openai/gpt-4o-mini", {"api_key_env": "MY_TEAM_KEY"}, ("api_key_env names MY_TEAM_KEY, which is not set",)),
    ("hosted_vllm/qwen", {}, ("served by you; give its api_base",)),
])
@pytest.mark.parametrize("command", ["run", "eval", "evolve"])
def test_a_model_without_its_key_or_endpoint_is_refused_before_anything_is_written(tmp_path, command, model,
                                                                                    settings, needles):
    config = tmp_path / "c.yaml"
    config.write_text(f"roles: {{agent: {json.dumps({'model': model, **settings})}}}\ntasks: [{TASK}]\n")
    if command == "evolve":
        args = ["evolve", "--config", str(config)]
    else:
        base = ["--generation", str(GEN0)] if command == "eval" else []
        args = [command, *base, "--config", str(config), "--tasks", str(TASK)]
    refused(invoke(*args, "--out", str(tmp_path / "out")), f"model '{model}'", *needles)
    assert not (tmp_path / "out").exists()


def test_a_key_in_the_environment_passes_and_a_local_server_needs_no_key_with_hosted_vllm(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    preflight.check_models([preflight.ModelSettings(model="openai/gpt-4o-mini")])  # no endpoint is probed
    monkeypatch.setenv("MY_TEAM_KEY", "sk-team")
    preflight.check_models([preflight.ModelSettings(model="anthropic/claude-sonnet-4", api_key_env="MY_TEAM_KEY")])
    with pytest.raises(UserError, match="endpoint http://127.0.0.1:9/v1 does not answer"):  # no key asked
        preflight.check_models([preflight.ModelSettings(model="hosted_vllm/qwen", api_base="http://127.0.0.1:9/v1")])


def test_an_environment_that_cannot_start_here_is_refused_in_one_line(tmp_path, monkeypatch):
    done = invoke("run", "--tasks", str(TASK), "--env", "daytona", "--out", str(tmp_path / "out"))
    refused(done, "--env daytona", "DAYTONA_API_KEY")  # Harbor's own credential preflight, as one line
    monkeypatch.setattr(preflight.os, "geteuid", lambda: 1000)
    refused(invoke("run", "--tasks", str(TASK), "--env", "local", "--out", str(tmp_path / "out")),
            "--env local: the embedded sandbox needs root", "--env podman")
    monkeypatch.setattr("modularrsi.tasks.trials.engine_here", lambda: None)
    refused(invoke("evolve", "--tasks", str(TASK), "--out", str(tmp_path / "out")),
            "--env auto: not root", "install podman or docker")
    assert not (tmp_path / "out").exists()


def test_auto_without_root_chooses_a_container_engine(monkeypatch):
    from modularrsi.tasks import trials

    assert trials.auto_choice(TASK, engine="podman") == ("local" if os.geteuid() == 0 else "podman")
    monkeypatch.setattr(trials.os, "geteuid", lambda: 1000)
    assert trials.auto_choice(TASK, engine="podman") == "podman"
    with pytest.raises(trials.EnvironmentUnavailable, match="not root: the embedded sandbox needs root"):
        trials.auto_choice(TASK, engine=None)


def counting(monkeypatch, module, name: str) -> list:
    calls: list = []
    real = getattr(module, name)
    monkeypatch.setattr(module, name, lambda *a, **k: (calls.append(a), real(*a, **k))[1])
    return calls


def test_eval_checks_once_for_both_sides(tmp_path, monkeypatch):
    checks = counting(monkeypatch, preflight, "check_models")
    done = invoke("eval", "--generation", str(GEN0), "--tasks", str(TASK), "-k", "1", "--out", str(tmp_path / "e"))
    assert done.exit_code == 0, done.output
    assert len(checks) == 1


def test_an_evolution_checks_once_and_its_stages_reuse_it(tmp_path, monkeypatch):
    from modularrsi.evolve.config import EvolveConfig
    from modularrsi.evolve.pipeline import Evolution
    from modularrsi.rollouts import run

    def again(config):
        raise AssertionError("a stage of the evolution ran the preflight again")

    monkeypatch.setattr(run, "check_run", again)
    checks = counting(monkeypatch, preflight, "check_models")
    pool, heldout = REPO / "tasks" / "pool", REPO / "tasks" / "heldout"
    cfg = EvolveConfig.load(None, {"tasks": [str(pool / t) for t in SAMPLED_TASKS[:2]], "modules": ["completion"],
                                   "epochs": 1, "k": 1, "concurrency": 4, "seed": 3,
                                   "eval_tasks": [str(heldout / sorted(os.listdir(heldout))[0])], "eval_k": 1})
    summary = asyncio.run(Evolution(cfg, tmp_path / "run").run())
    assert len(checks) == 1 and (tmp_path / "run" / "eval" / "eval.json").is_file(), summary


def test_a_stop_exits_3_and_a_bug_exits_1_with_its_traceback(tmp_path, monkeypatch):
    from modularrsi.rollouts import run

    async def stopped(*args, **kwargs):
        raise Stopped("budget stop: token cap reached; --resume RUN continues")

    monkeypatch.setattr(run, "execute", stopped)
    done = invoke("run", "--tasks", str(TASK), "--out", str(tmp_path / "a"))
    assert done.exit_code == EXIT_STOPPED and "stopped: budget stop" in done.stderr, done.output

    async def bug(*args, **kwargs):
        RunConfig.model_validate({"k": "not a number"})  # an internal validation error, not the user's input

    monkeypatch.setattr(run, "execute", bug)
    done = invoke("run", "--tasks", str(TASK), "--out", str(tmp_path / "b"))
    assert done.exit_code == EXIT_BUG and type(done.exception).__name__ == "ValidationError", done.output
