"""bench/small_tier/run.sh heldout: each arm's frozen library against gen_0 on the held-out evaluation set as
selected now, through `modularrsi eval`, against the fake server - an arm whose library is gen_0, or that has
no frozen library yet, is named and skipped, and running the step again resumes rather than starting over."""

from __future__ import annotations

import json
import os
import subprocess

import yaml
from testutil import REPO, claim_and_refuse

from modularrsi.evolve.runfiles import EvolveLock, FrozenRecord
from modularrsi.harness import BASELINE
from modularrsi.offline.fake_server import FakeOpenAIServer
from modularrsi.offline.sim_editor import SimEditor

TIER = REPO / "bench" / "small_tier"
SELECTED = ["script-name-initials", "world-writable-audit"]


def arm(root, changed: list[str], mechanism: str = "json_repair"):
    """An evolution run as far as the step reads it: the frozen library, its record and the evolution's tasks."""
    root.mkdir(parents=True)
    if changed:
        SimEditor().propose("tool_use", mechanism, BASELINE, root / "frozen", force="good")
    (root / "frozen.json").write_text(FrozenRecord(generation="g", start="s", changed_modules=changed)
                                      .model_dump_json())
    (root / "lock.json").write_text(EvolveLock(mode="lanes", tasks=["package-release-tag"]).model_dump_json())


def heldout(tmp_path, server: FakeOpenAIServer, step: str = "heldout",
            arms: str | None = "catalogue llm llm-blocks catalogue-context llm-context-2"
            ) -> subprocess.CompletedProcess:
    """``run.sh STEP``; ``arms`` None: the step's default (the declared family)."""
    env = {**os.environ, "SMALL_TIER_OUT": str(tmp_path / "runs"), "SMALL_TIER_RESULTS": str(tmp_path / "results"),
           "SMALL_TIER_AGENT": str(tmp_path / "agent.yaml"), "SMALL_TIER_PORT": str(server.port), "CONCURRENCY": "2"}
    env.pop("ARMS", None)
    if arms is not None:
        env["ARMS"] = arms
    return subprocess.run(["bash", str(TIER / "run.sh"), step], cwd=REPO, env=env, capture_output=True,
                          text=True, timeout=900)


def test_the_heldout_step_evaluates_each_changed_arm_on_the_selection_and_skips_the_rest(tmp_path):
    arm(tmp_path / "runs" / "evolve-catalogue", ["tool_use"])
    arm(tmp_path / "runs" / "evolve-llm", [])  # nothing promoted: its library is gen_0
    arm(tmp_path / "runs" / "evolve-catalogue-context", ["tool_use"], "lenient_parse")
    arm(tmp_path / "runs" / "evolve-llm-context-2", ["tool_use"], "quoted_feedback")  # two evaluations to share
    manifest = json.loads((TIER / "results" / "heldout-manifest.json").read_text())
    manifest["selection"]["train"] = SELECTED  # two of the tier's held-out tasks, so the test stays short
    (tmp_path / "results").mkdir()
    (tmp_path / "results" / "heldout-manifest.json").write_text(json.dumps(manifest))
    agent = yaml.safe_load((TIER / "agent.yaml").read_text())
    with FakeOpenAIServer(responder=claim_and_refuse) as server:
        agent["roles"]["agent"]["api_base"] = server.base_url
        (tmp_path / "agent.yaml").write_text(yaml.safe_dump(agent))
        first = heldout(tmp_path, server)
        assert first.returncode == 0, first.stderr[-3000:] + first.stdout[-3000:]
        asked = len(server.requests)
        again = heldout(tmp_path, server, arms=None)  # the family's evals resumed: nothing is asked again
        assert again.returncode == 0, again.stderr[-3000:]
        assert len(server.requests) == asked and "evolve-llm:" not in again.stdout
        for name in ("catalogue", "catalogue-context", "llm-context-2"):
            (tmp_path / "runs" / f"evolve-{name}" / "history.jsonl").write_text("")
        summed = heldout(tmp_path, server, "summary", arms=None)
        assert summed.returncode == 0, summed.stderr[-3000:]
    page = (tmp_path / "results" / "summary.md").read_text()
    assert "family of arms declared for that set (catalogue-context, llm-context-2)" in page
    judged = json.loads((tmp_path / "results" / "evolve-catalogue-context" / "arm.json").read_text())
    assert judged["heldout_reselected"]["family"] == 3  # the declared two, and catalogue evaluated there too
    written = tmp_path / "results" / "evolve-catalogue" / "heldout-eval.json"
    result = json.loads(written.read_text())
    assert result["tasks"] == len(SELECTED) and result["k"] == 3 and not result["simulated"]
    assert result == json.loads((tmp_path / "runs" / "heldout-catalogue" / "eval.json").read_text())
    config = yaml.safe_load((tmp_path / "runs" / "heldout-catalogue" / "config.yaml").read_text())
    assert config["manifest"].endswith("results/heldout-manifest.json") and config["k"] == 3
    other = json.loads((tmp_path / "results" / "evolve-catalogue-context" / "heldout-eval.json").read_text())
    assert other["shared"] == {"baseline": 3 * len(SELECTED)}  # gen_0's side is drawn once for both arms
    assert other["baseline"]["acc"] == result["baseline"]["acc"] and result["shared"] == {}
    last = json.loads((tmp_path / "results" / "evolve-llm-context-2" / "heldout-eval.json").read_text())
    assert last["shared"] == {"baseline": 3 * len(SELECTED)} and last["baseline"]["acc"] == result["baseline"]["acc"]
    assert "evolve-llm: its frozen library is gen_0 (nothing promoted): not evaluated" in first.stdout
    assert "evolve-llm-blocks: no frozen library yet" in first.stdout
    assert not (tmp_path / "results" / "evolve-llm").exists() and not (REPO / "runs" / "heldout-catalogue").exists()
