"""A task written by others reads no host variable the user did not name (real Harbor trials, LocalSandbox)."""

from __future__ import annotations

import tomllib

from harbor.models.trial.config import AgentConfig

from modularrsi.tasks.trials import run_trial
from modularrsi.util.hostenv import PASS_ENV, host_variables

PLANTED = "sk-planted-0123456789"
#: The task copies the host variable into its sandbox (environment env) and into its verifier (verifier env);
#: the verifier scores 1 only when both arrived.
LEAKY_TOML = """\
[verifier]
timeout_sec = 60.0
[verifier.env]
LEAK = "${MRSI_PLANTED_KEY}"
[agent]
timeout_sec = 60.0
[environment]
workdir = "/app"
[environment.env]
SEEN = "${MRSI_PLANTED_KEY:-none}"
"""
LEAKY_TEST = (f'#!/bin/bash\nif grep -q sk-planted /app/done.txt && [ "$LEAK" = "{PLANTED}" ]; then echo 1; '
              'else echo 0; fi > /logs/verifier/reward.txt\n')
LEAKY_SOLVE = '#!/bin/bash\n# step: copy it\necho "$SEEN" > /app/done.txt\n'


def leaky_task(task_factory):
    return task_factory(toml=LEAKY_TOML, test_sh=LEAKY_TEST, solve_sh=LEAKY_SOLVE)


async def test_a_task_toml_template_naming_a_host_secret_is_refused_before_its_trial(task_factory, tmp_path,
                                                                                    monkeypatch):
    monkeypatch.setenv("MRSI_PLANTED_KEY", PLANTED)
    monkeypatch.delenv(PASS_ENV, raising=False)
    task = leaky_task(task_factory)
    outcome = await run_trial(task, AgentConfig(name="oracle"), tmp_path / "trials", "local", "leak")
    assert outcome.reward is None and outcome.invalid, outcome
    assert "reads the host variable MRSI_PLANTED_KEY" in outcome.invalid and PASS_ENV in outcome.invalid
    assert "\n" not in outcome.invalid
    for path in (tmp_path / "trials").rglob("*"):
        assert not path.is_file() or PLANTED not in path.read_text(errors="replace"), path


async def test_a_host_variable_the_user_names_crosses_into_sandbox_and_verifier(task_factory, tmp_path,
                                                                               monkeypatch):
    monkeypatch.setenv("MRSI_PLANTED_KEY", PLANTED)
    monkeypatch.setenv(PASS_ENV, "OTHER, MRSI_PLANTED_KEY")
    outcome = await run_trial(leaky_task(task_factory), AgentConfig(name="oracle"), tmp_path / "trials", "local",
                              "named")
    assert outcome.invalid is None and outcome.reward == 1.0, outcome


def test_every_env_table_of_a_task_is_searched():
    raw = tomllib.loads(LEAKY_TOML + '[[steps]]\nname = "s"\n[steps.verifier.env]\nB = "${STEP_VAR}"\n'
                        '[[mcp_servers]]\nname = "m"\n[mcp_servers.env]\nC = "a${ONE}b${TWO:-x}"\n')
    found = sorted(host_variables(raw))
    assert found == [("environment.env", "SEEN", "MRSI_PLANTED_KEY"), ("mcp_servers[0].env", "C", "ONE"),
                     ("mcp_servers[0].env", "C", "TWO"), ("steps[0].verifier.env", "B", "STEP_VAR"),
                     ("verifier.env", "LEAK", "MRSI_PLANTED_KEY")]


def test_a_refused_task_is_an_invalid_attempt_of_a_run_never_a_scored_failure(task_factory, tmp_path):
    """Through ``modularrsi run``: the refusal is listed whole, and the attempt is left out of Acc."""
    import json
    import os
    import subprocess
    import sys

    leaky, plain = leaky_task(task_factory), task_factory()
    env = {k: v for k, v in os.environ.items() if k != PASS_ENV} | {"MRSI_PLANTED_KEY": PLANTED}
    done = subprocess.run([sys.executable, "-m", "modularrsi.cli", "run", "--tasks", str(leaky), "--tasks", str(plain),
                           "-k", "1", "--model", "sim:perfect", "--env", "local", "--out", str(tmp_path / "run")],
                          capture_output=True, text=True, timeout=600, env=env)
    assert done.returncode == 0, done.stderr[-2000:]
    results = json.loads((tmp_path / "run" / "results.json").read_text())
    refused = next(a for a in results["attempts"] if a["task"] == leaky.name)
    assert refused["reward"] is None and refused["invalid"].endswith("to let them in"), refused
    assert f"{PASS_ENV}=MRSI_PLANTED_KEY" in refused["invalid"]
    plain_acc = next(t["acc"] for t in results["per_task"] if t["task"] == plain.name)
    assert plain_acc == 1.0  # so a refusal counted as a failure would show as Acc 0.5
    assert results["overall"]["invalid_attempts"] == 1 and results["overall"]["acc"] == plain_acc
