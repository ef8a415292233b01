"""bench/small_tier's configs: each loads with the command that reads it, both evolution arms reach the model
exactly as the difficulty measurement did, and the catalogue arm runs end to end against the fake server."""

from __future__ import annotations

import os
import subprocess
import sys

import yaml
from testutil import REPO, claim_and_refuse

from modularrsi.evolve.config import EvolveConfig
from modularrsi.rollouts.config import RunConfig

TIER = REPO / "bench" / "small_tier"


def test_the_arms_share_the_measured_agent_and_differ_only_in_the_editor():
    agent = RunConfig.load(TIER / "agent.yaml")
    llm, catalogue = EvolveConfig.load(TIER / "evolve-llm.yaml"), EvolveConfig.load(TIER / "evolve-catalogue.yaml")
    for arm in (llm, catalogue):
        assert arm.roles.agent == agent.roles.agent  # the model whose difficulty selected the tasks
        assert (arm.max_turns, arm.timeout_multiplier) == (agent.max_turns, agent.timeout_multiplier)
        assert arm.role("analyst").model == arm.role("reviewer").model == agent.roles.agent.model
        assert arm.eval_tasks and (REPO / arm.manifest) == TIER / "results" / "pool-manifest.json"  # from the repo root
    assert llm.role("editor").model == agent.roles.agent.model
    assert catalogue.role("editor").model == "sim" and catalogue.editor.bad_rate == 0
    strip = {"editor", "roles"}
    assert llm.model_dump(exclude=strip) == catalogue.model_dump(exclude=strip)
    assert "catalogue editor" in (TIER / "evolve-catalogue.yaml").read_text().split("\ntasks:")[0]


def test_the_catalogue_arm_runs_end_to_end_against_the_fake_server(tmp_path):
    from modularrsi.offline.fake_server import FakeOpenAIServer

    settings = yaml.safe_load((TIER / "evolve-catalogue.yaml").read_text())

    with FakeOpenAIServer(responder=claim_and_refuse) as server:
        for role in settings["roles"].values():
            if role["model"] != "sim":
                role["api_base"] = server.base_url
        settings.update(tasks=[str(REPO / "tasks" / "small" / "pool" / "package-release-tag")], manifest=None,
                        eval_tasks=[str(REPO / "tasks" / "small" / "heldout" / "script-name-initials")],
                        modules=["completion"], epochs=1, k=1, eval_k=1, concurrency=2)
        config = tmp_path / "arm.yaml"
        config.write_text(yaml.safe_dump(settings))
        result = subprocess.run([sys.executable, "-m", "modularrsi.cli", "evolve", "--config", str(config), "--out",
                                 str(tmp_path / "run")], cwd=REPO, capture_output=True, text=True, timeout=900,
                                env={**os.environ, "COLUMNS": "200", "LOCAL_MODEL_KEY": "local"})
        assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-2000:]
        assert {r["model"] for r in server.requests if "messages" in r} == {"qwen2.5-coder-1.5b-instruct-q4_k_m"}
    assert (tmp_path / "run" / "eval" / "eval.json").is_file() and (tmp_path / "run" / "frozen").is_dir()
