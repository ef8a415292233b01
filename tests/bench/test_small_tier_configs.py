"""bench/small_tier's configs: each loads with the command that reads it, both evolution arms reach the model
exactly as the difficulty measurement did, and the catalogue arm runs end to end against the fake server."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

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
    strip = {"editor", "roles", "share_from"}
    assert llm.model_dump(exclude=strip) == catalogue.model_dump(exclude=strip)
    assert llm.share_from == Path("runs/small-tier/evolve-catalogue") and catalogue.share_from is None
    assert "catalogue editor" in (TIER / "evolve-catalogue.yaml").read_text().split("\ntasks:")[0]
    for form in ("blocks", "guided"):  # the LLM arm with its editor working another way, and nothing else changed
        other = EvolveConfig.load(TIER / f"evolve-llm-{form}.yaml")
        assert (llm.editor.format, other.editor.format) == ("json", form)
        assert other.model_dump(exclude={"editor"}) == llm.model_dump(exclude={"editor"})
        assert other.editor.model_dump(exclude={"format"}) == llm.editor.model_dump(exclude={"format"})
    guided, replies = (EvolveConfig.load(TIER / f"evolve-llm-{arm}.yaml") for arm in ("guided", "replies"))
    assert (llm.editor.replies, replies.editor.replies) == (0, 6)  # the arms run before recorded replies: off
    assert replies.model_dump(exclude={"editor"}) == guided.model_dump(exclude={"editor"})
    assert replies.editor.model_dump(exclude={"replies"}) == guided.editor.model_dump(exclude={"replies"})
    # the catalogue arm with the Context lane for Tool Use's partner, from the catalogue arm's draws; nothing else
    context = EvolveConfig.load(TIER / "evolve-catalogue-context.yaml")
    assert (catalogue.modules, context.modules) == (["tool_use", "completion"], ["tool_use", "context"])
    assert context.share_from == Path("runs/small-tier/evolve-catalogue")
    apart = {"modules", "share_from"}
    assert context.model_dump(exclude=apart) == catalogue.model_dump(exclude=apart)
    # the guided LLM editor with recorded replies on the Context lane alone, from the catalogue-context arm's draws
    llm_context = EvolveConfig.load(TIER / "evolve-llm-context.yaml")
    assert llm_context.modules == ["context"]
    assert llm_context.share_from == Path("runs/small-tier/evolve-catalogue-context")
    assert llm_context.model_dump(exclude=apart) == replies.model_dump(exclude=apart)
    # the same arm drawn again (an async edit_history awaited), from the llm-context run's draws
    again = EvolveConfig.load(TIER / "evolve-llm-context-2.yaml")
    assert again.share_from == Path("runs/small-tier/evolve-llm-context")
    assert again.model_dump(exclude={"share_from"}) == llm_context.model_dump(exclude={"share_from"})


def evolve(config, out):
    return subprocess.run([sys.executable, "-m", "modularrsi.cli", "evolve", "--config", str(config), "--out",
                           str(out)], cwd=REPO, capture_output=True, text=True, timeout=900,
                          env={**os.environ, "COLUMNS": "200", "LOCAL_MODEL_KEY": "local"})


def test_the_catalogue_arm_runs_end_to_end_against_the_fake_server_and_a_second_arm_shares_its_draws(tmp_path):
    """The arm as configured, against the fake server; then the same arm again with ``share_from`` the first:
    its samples, held-out baseline and role replies are the first's, so it asks the model nothing - and a run
    that draws with other settings is refused before anything is written."""
    from modularrsi.offline.fake_server import FakeOpenAIServer

    settings = yaml.safe_load((TIER / "evolve-catalogue.yaml").read_text())

    with FakeOpenAIServer(responder=claim_and_refuse) as server:
        for role in settings["roles"].values():
            if role["model"] != "sim":
                role["api_base"] = server.base_url
        settings.update(tasks=[str(REPO / "tasks" / "small" / "pool" / "package-release-tag")], manifest=None,
                        eval_tasks=[str(REPO / "tasks" / "small" / "heldout" / "script-name-initials")],
                        eval_manifest=None, modules=["completion"], epochs=1, k=1, eval_k=1, concurrency=2)
        config = tmp_path / "arm.yaml"
        config.write_text(yaml.safe_dump(settings))
        result = evolve(config, tmp_path / "run")
        assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-2000:]
        assert {r["model"] for r in server.requests if "messages" in r} == {"qwen2.5-coder-1.5b-instruct-q4_k_m"}
        asked = len(server.requests)

        (tmp_path / "second.yaml").write_text(yaml.safe_dump({**settings, "share_from": str(tmp_path / "run"),
                                                              "concurrency": 1}))
        second = evolve(tmp_path / "second.yaml", tmp_path / "second")
        assert second.returncode == 0, second.stdout[-2000:] + second.stderr[-2000:]
        assert len(server.requests) == asked  # every draw came from the first run
        (tmp_path / "other.yaml").write_text(yaml.safe_dump({**settings, "share_from": str(tmp_path / "run"),
                                                             "max_turns": 7}))
        refused = evolve(tmp_path / "other.yaml", tmp_path / "other")
        assert refused.returncode != 0 and not (tmp_path / "other").exists()
        assert "share_from:" in refused.stderr and "draws with another max_turns (10, here 7)" in refused.stderr
    for run in ("run", "second"):
        assert (tmp_path / run / "eval" / "eval.json").is_file() and (tmp_path / run / "frozen").is_dir()
    first, again = (json.loads((tmp_path / run / "eval" / "eval.json").read_text()) for run in ("run", "second"))
    assert first["tasks"] == again["tasks"]
    for shared in ("samples/*/trials/*/result.json", "eval/baseline/trials/*/result.json"):  # copies, not re-runs
        mine, theirs = (sorted((tmp_path / run).glob(shared)) for run in ("run", "second"))
        assert mine and [p.read_text() for p in mine] == [p.read_text() for p in theirs]
