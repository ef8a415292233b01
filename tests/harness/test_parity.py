"""Parity: ModularAgent(gen_0) and Harbor's Terminus-2, same scripted model, same task.

Both agents talk to the same local fake OpenAI-compatible server over real HTTP through LiteLLM, run
in LocalSandbox, and must send the same keystrokes, end on the same turn and get the same reward.
"""

from __future__ import annotations

import json
import os

import pytest
from harbor.models.trial.config import AgentConfig

from modularrsi.models.fake_server import FakeOpenAIServer
from modularrsi.tasks.trials import environment_config, run_trial


def reply(commands, done=False, analysis="checking"):
    return json.dumps({"analysis": analysis, "plan": "next", "task_complete": done,
                       "commands": [{"keystrokes": k, "duration": d} for k, d in commands]})


SCRIPT = [
    reply([("ls -la\n", 0.1)]),
    "I think I should write the file now, but I forgot the JSON.",          # parse error, fed back
    reply([("echo done > /app/done.txt\n", 0.1), ("cat /app/done.txt\n", 0.1)]),
    'Some text before {"analysis": "ok", "plan": "p", "commands": [{"keystrokes": "pwd\\n", "duration": 0.1}]}',
    reply([], done=True),                                                      # first claim: "are you sure?"
    reply([("true\n", 0.1)]),                                                  # not a claim: resets
    reply([], done=True),
    reply([], done=True),                                                      # confirmed
]


def first_difference(expected: list[list[dict]], got: list[list[dict]]) -> str:
    """Where two request sequences first differ, as a unified diff of that message's content."""
    import difflib

    for i, (a, b) in enumerate(zip(expected, got, strict=False)):
        for j, (m, n) in enumerate(zip(a, b, strict=False)):
            if m != n:
                diff = difflib.unified_diff(str(m["content"]).splitlines(), str(n["content"]).splitlines(),
                                            "terminus-2", "gen_0", lineterm="")
                return f"request {i}, message {j} ({m['role']}):\n" + "\n".join(diff)
        if len(a) != len(b):
            return f"request {i}: {len(a)} messages vs {len(b)}"
    return f"{len(expected)} requests vs {len(got)}"


def keystrokes(trajectory: dict) -> list[str]:
    return [c["arguments"]["keystrokes"] for s in trajectory["steps"] for c in (s.get("tool_calls") or [])
            if c["function_name"] == "bash_command"]


def agent_turns(trajectory: dict) -> int:
    return sum(1 for s in trajectory["steps"] if s["source"] == "agent")


@pytest.fixture
def openai_key(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-parity-test")


async def test_gen0_matches_terminus2(task_factory, tmp_path, openai_key):
    task = task_factory(name="parity")
    env = environment_config("local")
    outcomes, trajectories, requests, prompts = {}, {}, {}, {}
    for label in ("terminus", "modular"):
        with FakeOpenAIServer(list(SCRIPT)) as server:
            if label == "terminus":
                agent = AgentConfig(name="terminus-2", model_name="openai/fake-model",
                                    kwargs={"api_base": server.base_url, "record_terminal_session": False})
            else:
                agent = AgentConfig(import_path="modularrsi.harness:ModularAgent", model_name="openai/fake-model",
                                    kwargs={"api_base": server.base_url, "api_key_env": "OPENAI_API_KEY"})
            outcome = await run_trial(task, agent, tmp_path / label, env, "parity")  # one name: one host name
            requests[label] = len(server.requests)
            prompts[label] = [r["messages"] for r in server.requests]
        outcomes[label] = outcome
        assert outcome.exception is None, outcome.exception
        trajectories[label] = json.loads((outcome.trial_dir / "agent" / "trajectory.json").read_text())
    assert keystrokes(trajectories["modular"]) == keystrokes(trajectories["terminus"])
    assert keystrokes(trajectories["modular"])[:2] == ["ls -la\n", "echo done > /app/done.txt\n"]
    assert agent_turns(trajectories["modular"]) == agent_turns(trajectories["terminus"]) == len(SCRIPT)
    assert requests["modular"] == requests["terminus"] == len(SCRIPT)
    assert prompts["modular"] == prompts["terminus"], first_difference(prompts["terminus"], prompts["modular"])
    assert outcomes["modular"].reward == outcomes["terminus"].reward == 1.0


def test_no_purpose_tag_or_key_reaches_the_wire(tmp_path):
    import asyncio

    from modularrsi.models.base import Message
    from modularrsi.models.litellm_backend import LiteLLMModel

    os.environ["MODULARRSI_PLANTED"] = "sk-planted-secret-999"
    with FakeOpenAIServer(["hello"]) as server:
        model = LiteLLMModel("openai/fake-model", api_base=server.base_url, api_key_env="MODULARRSI_PLANTED")
        asyncio.run(model.complete([Message("user", "hi", "completion_check")]))
        body = json.dumps(server.requests)
    assert "purpose" not in body and "completion_check" not in body
    assert "sk-planted-secret-999" not in repr(model)
