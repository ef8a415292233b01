"""The LLM editor's test fixtures: a weak model over real HTTP (LiteLLM -> the fake OpenAI-compatible server),
a completion direction to edit for, and a function file that passes every check."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from testutil import REPO

from modularrsi.evolve.config import EvolveConfig
from modularrsi.evolve.editor import EditRequest
from modularrsi.evolve.findings import Direction, Finding
from modularrsi.evolve.pipeline import Evolution
from modularrsi.harness import BASELINE
from modularrsi.models.litellm_backend import LiteLLMModel
from modularrsi.models.settings import ModelSettings
from modularrsi.offline.fake_server import FakeOpenAIServer

KEY_ENV = "WEAK_MODEL_KEY"  # set by each test module's autouse fixture
LANE_KEY_ENV = "FAKE_LANE_KEY"  # tool_use_run's roles' key (the caller sets it)
DESCRIPTION = "Completion claims go unchecked because nothing asks for evidence; asking once leads to a check."
FENCE = "`" * 3
GOOD_FN = '''"""Asks for evidence once."""
DESCRIPTION = "Before the first claim is accepted, asks for one command whose output shows the result."
MODULE = "completion"
PARAMETERS = {"reminder": "Show the result with a command, then claim again."}
ROLE = "additive"


def check(ctx, claim):
    first = not ctx.memo.get("asked")
    ctx.memo["asked"] = True
    return ctx.params["reminder"] if first else None
'''


def llm(server: FakeOpenAIServer) -> LiteLLMModel:
    return LiteLLMModel(ModelSettings(model="openai/weak", api_base=server.base_url, api_key_env=KEY_ENV,
                                      timeout_s=5, max_retries=1), backoff_s=0.01)


def completion_direction() -> Direction:
    finding = Finding(task="t1", lens="completion", kind="contrastive", is_culprit=True, locked_module="completion",
                      divergence="completion claimed with no check", mechanism="completion-evidence-check",
                      suggested_change="ask for a verifying command before accepting a claim", pass_count=1,
                      attempts=3)
    return Direction(id="d1", module="completion", mechanism="completion-evidence-check", tasks=["t1"],
                     summary=finding.suggested_change, findings=[finding], vote=1.0, raw_support=1)


def request() -> EditRequest:
    return EditRequest(direction=completion_direction(), parent_dir=BASELINE, modules=["completion"])


def lane_responder(started: list[int]):
    """The agent solves the task in its first attempt; in its second it sends a reply with a raw line break in a
    string (refused), then claims completion: a mixed task, which the analyst blames on parsing."""
    solve = {"keystrokes": "jq -r '\"\\(.name)@\\(.version)\"' /app/package.json > /app/release.txt\n", "duration": 1}
    finding = {"concerns": "harness", "is_culprit": True, "locked_module": "tool_use", "divergence": "replies refused",
               "would_change_outcome": True, "fixable_now": True, "mechanism": "parse-repair", "evidence_steps": [1],
               "suggested_change": "repair unparseable replies before refusing them"}

    def respond(request: dict) -> str:
        messages = request["messages"]
        system = messages[0]["content"]
        if system.startswith("You analyse trajectories"):
            return json.dumps(finding)
        if system.startswith("You improve one module"):
            return "I cannot write it."
        if len(messages) <= 2:
            started.append(1)
            if len(started) == 1:
                return json.dumps({"analysis": "a", "plan": "p", "commands": [solve], "task_complete": False})
            return '{"analysis": "a", "plan": "look\nfirst", "commands": [{"keystrokes": "ls\\n"}]}'
        return json.dumps({"analysis": "a", "plan": "p", "commands": [], "task_complete": True})
    return respond


def tool_use_run(run: Path) -> Path:
    """One epoch of a Tool Use lane whose only direction is about parsing, every role the fake server
    (:func:`lane_responder`; its guided editor fails), on one small task run twice in the local sandbox."""
    with FakeOpenAIServer(responder=lane_responder([])) as server:
        role = {"model": "openai/fake-role", "api_base": server.base_url, "api_key_env": LANE_KEY_ENV}
        config = EvolveConfig(tasks=[REPO / "tasks" / "small" / "pool" / "package-release-tag"],
                              modules=["tool_use"], epochs=1, k=2, concurrency=1, seed=5, env="local", max_turns=4,
                              aggregate={"min_support": 1},
                              editor={"candidates": 1, "max_turns": 2, "format": "guided"},
                              roles={"agent": role, "analyst": role, "editor": role, "reviewer": role})
        asyncio.run(Evolution(config, run).run())
    return run
