"""The evolution pipeline with LLM roles over real HTTP: analyst, editor and reviewer are a local
OpenAI-compatible server (LiteLLM path), the agent is sim."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from testutil import REPO, SAMPLED_TASKS

from modularrsi.evolve.config import EvolveConfig
from modularrsi.evolve.gates.execution import Pair, decide
from modularrsi.evolve.gates.sequential import ConfirmRule
from modularrsi.evolve.history import History
from modularrsi.evolve.pipeline import Evolution
from modularrsi.harness.library import load_generation
from modularrsi.offline.fake_server import FakeOpenAIServer

KEY = "sk-planted-evolve-key-5f2c"
FUNCTION = '''"""Challenge a completion claim once and ask for evidence."""

MODULE = "completion"
ROLE = "additive"
DESCRIPTION = "Challenges the first completion claim and asks to verify every requirement with a command."
PARAMETERS = {}


def check(reply, output, ctx):
    if ctx.memo.get("asked"):
        return None
    ctx.memo["asked"] = True
    return ("Before this is marked complete, verify it: re-read each requirement and run a command that "
            "shows it holds; fix anything missing, then claim completion again.")
'''


def responder(request: dict) -> str:
    messages = request["messages"]
    system = messages[0]["content"]
    if system.startswith("You analyse trajectories"):
        return json.dumps({"is_culprit": True, "locked_module": "completion", "would_change_outcome": True,
                           "fixable_now": True, "divergence": "completion was claimed before any verification",
                           "suggested_change": "challenge completion claims and ask for a verification command",
                           "mechanism": "completion-evidence-check", "evidence_steps": [1]})
    if system.startswith("You improve one module"):
        turn = sum(m["role"] == "assistant" for m in messages)
        active = ["confirm_twice", "ask_evidence"]
        return json.dumps([{"tool": "read", "path": "completion/confirm_twice.py"},
                           {"tool": "write", "path": "completion/ask_evidence.py", "content": FUNCTION},
                           {"tool": "activate", "module": "completion", "names": active},
                           {"tool": "done", "description": "Agents claim completion without checking because "
                            "nothing asks for evidence; one challenge leads them to verify each requirement."}
                           ][min(turn, 3)])
    if system.startswith("You review one proposed change"):
        return json.dumps({"approve": True, "reason": "concrete causal chain and a generic mechanism"})
    return "unexpected role"


def test_llm_roles_drive_a_lane_over_http_and_never_see_outcomes_or_keys(tmp_path, monkeypatch):
    monkeypatch.setenv("FAKE_EVOLVE_KEY", KEY)
    with FakeOpenAIServer(responder=responder) as server:
        llm = {"model": "openai/fake-role", "api_base": server.base_url, "api_key_env": "FAKE_EVOLVE_KEY"}
        config = EvolveConfig(tasks=[REPO / "tasks" / "pool" / t for t in SAMPLED_TASKS], modules=["completion"],
                              epochs=1, k=2, concurrency=4, seed=3, aggregate={"min_support": 1},
                              editor={"candidates": 1},
                              roles={"agent": {"model": "sim"}, "analyst": llm, "editor": llm, "reviewer": llm})
        run = tmp_path / "run"
        asyncio.run(Evolution(config, run).run())
        requests = list(server.requests)
    roles = [r["messages"][0]["content"].split(" ")[1] for r in requests]
    assert {"analyse", "improve", "review"} <= set(roles)
    change = History(run / "history.jsonl").changes["completion/e0/d0-0"]
    assert change.editor == "llm-editor:openai/fake-role"
    assert change.files == ["manifest.json", "modules/completion/ask_evidence.py"]
    assert [g.gate for g in change.gates][:2] == ["static", "review"]
    assert change.gates[1].reason == "reviewer: concrete causal chain and a generic mechanism"
    assert [g.gate for g in change.gates][2:] in (["execution"], ["execution"] * 2)  # execution decides
    # whichever way the sim answered, the decision is the rule applied to the paired runs it recorded (the
    # screen's replayed attempts, then the confirm's fresh pairs), and the library follows the decision
    verdict = change.gates[-1]
    if verdict.details["stage"] == "confirm":
        pairs = [Pair.model_validate(p) for p in verdict.details["pairs_detail"]]
        rule = ConfirmRule.model_validate(verdict.details["rule"])
        assert decide(pairs, verdict.details["anchor_tasks"], rule)[0] == verdict.details["decision"]
        assert Path(verdict.details["runs"]["parent"]).is_dir()  # the parent ran afresh, not the epoch's sample
        assert verdict.details["seed"] != json.loads((run / "lanes" / "completion" / "epoch_0" / "sample.json")
                                                     .read_text())["seed"]
    else:
        assert verdict.details["stage"] == "screen" and not verdict.passed
        assert verdict.details["fixes"] == sum(f == "0→1" for fl in verdict.details["per_task"].values() for f in fl)
    assert (change.outcome == "promoted") == verdict.passed
    assert ("completion/ask_evidence" in load_generation(run / "frozen").functions) == verdict.passed
    for request in requests:  # editor and reviewer are reward-blind: no outcome words in what they read
        if request["messages"][0]["content"].startswith(("You improve", "You review")):
            text = json.dumps(request["messages"]).lower()
            assert "reward" not in text and "pass@" not in text and "passed" not in text
    leaked = [p for p in run.rglob("*") if p.is_file() and KEY.encode() in p.read_bytes()]
    assert leaked == []
