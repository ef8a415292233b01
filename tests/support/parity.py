"""Run one scripted episode with Harbor's Terminus-2 and with ModularAgent(gen_0), and compare them.

Both agents talk to the project's fake OpenAI-compatible server over real HTTP through LiteLLM and
run in LocalSandbox, each trial named by Harbor as ``harbor run`` names it (``<task>__<random>``, which
is also the sandbox's host name, shown in every prompt's shell prompt); each run's host name is
replaced by ``<host>`` in its requests and trajectories, and the modification times ``ls -l`` prints by
``<mtime>`` (the two runs may straddle a minute on a loaded machine), so the two compare what a user's
runs send. :func:`normalised` makes two ATIF
trajectories comparable field by field: timestamps and the random session id are replaced, and the
fields each agent adds about itself (its name, version and ``extra`` tags) are set aside.
"""

from __future__ import annotations

import difflib
import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from harbor.models.trial.config import AgentConfig

from modularrsi.offline.fake_server import FakeOpenAIServer
from modularrsi.sandbox.layout import hostname_for
from modularrsi.tasks.trials import environment_config, run_trial

#: What each run's own host name becomes in its requests and trajectories.
HOST = "<host>"
#: A modification time as ``ls -l`` prints it (``Dec  3 15:36``, or the year for an old file).
MTIME = re.compile(r"\b(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) [ \d]\d (?:\d\d:\d\d| \d{4})\b")
#: Step ``extra`` keys ModularAgent adds (purpose tags and parse facts: the design records them).
OWN_STEP_EXTRA = ("turn", "prompt_purpose", "purpose", "parse_error", "raw_reply")
#: ``result.json`` agent-result fields both agents fill alike (``metadata`` describes each agent itself).
AGENT_RESULT_FIELDS = ("n_input_tokens", "n_output_tokens", "n_cache_tokens", "cost_usd", "rollout_details")


@dataclass
class Run:
    outcome: Any
    prompts: list[list[dict]]
    agent_dir: Path
    trajectories: dict[str, dict] = field(default_factory=dict)

    @property
    def main(self) -> dict:
        return self.trajectories["trajectory.json"]

    @property
    def agent_result(self) -> dict:
        """``agent_result`` of the trial's ``result.json`` (Harbor's record of the agent's context)."""
        return json.loads((self.outcome.trial_dir / "result.json").read_text())["agent_result"]

    @property
    def episode(self) -> dict:
        return json.loads((self.agent_dir / "episode.json").read_text())


def reply(commands, done=False, analysis="checking"):
    return json.dumps({"analysis": analysis, "plan": "next", "task_complete": done,
                       "commands": [{"keystrokes": k, "duration": d} for k, d in commands]})


async def run_pair(task: Path, tmp_path: Path, script: list, model: str = "openai/fake-model",
                   terminus: dict | None = None, modular: dict | None = None) -> tuple[Run, Run]:
    """The episode of ``script`` with Terminus-2, then with ModularAgent(gen_0).

    Terminus-2 starts its shell and reads the screen without waiting for the prompt, so on a busy
    machine its first screen is now and then still empty (its own start race, which gen_0 does not
    copy); such a Terminus-2 run is repeated, at most twice."""
    for attempt in range(3):
        reference = await _run(task, tmp_path / f"terminus{attempt}", script, AgentConfig(
            name="terminus-2", model_name=model, kwargs={"record_terminal_session": False, **(terminus or {})}))
        if not reference.prompts or _first_screen(reference.prompts[0]).strip():
            break
    ours = await _run(task, tmp_path / "modular", script, AgentConfig(
        import_path="modularrsi.harness:ModularAgent", model_name=model,
        kwargs={"api_key_env": "OPENAI_API_KEY", **(modular or {})}))
    return reference, ours


async def _run(task: Path, trials: Path, script: list, agent: AgentConfig) -> Run:
    with FakeOpenAIServer(list(script)) as server:
        agent.kwargs["api_base"] = server.base_url
        outcome = await run_trial(task, agent, trials, environment_config("local"))  # Harbor names the trial
        requests = json.dumps([r["messages"] for r in server.requests])
    host = hostname_for(outcome.trial_dir.name)
    assert host in requests, f"the host name {host!r} is in no request"
    agent_dir = outcome.trial_dir / "agent"
    run = Run(outcome, json.loads(MTIME.sub("<mtime>", requests.replace(host, HOST))), agent_dir)
    run.trajectories = {p.name: _replace(json.loads(MTIME.sub("<mtime>", p.read_text())), host, HOST)
                        for p in sorted(agent_dir.glob("trajectory*.json"))}
    return run


def _first_screen(messages: list[dict]) -> str:
    return str(messages[0]["content"]).rpartition("Current Terminal Screen:")[2]


def first_difference(expected: list[list[dict]], got: list[list[dict]]) -> str:
    """Where two request sequences first differ, as a unified diff of that message's content."""
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


def normalised(trajectory: dict, session_id: str) -> dict:
    """``trajectory`` without volatile or self-describing fields (see the module docstring)."""
    data = _replace(trajectory, session_id, "<session>")
    agent = data.pop("agent")
    data["agent"] = {"model_name": agent.get("model_name"),
                     "role": agent["name"].partition("-summarization-")[2] or "main",
                     "extra": {k: v for k, v in (agent.get("extra") or {}).items()
                               if k in ("parent_session_id", "summarization_index")}}
    for step in data["steps"]:
        step.pop("timestamp", None)
        extra = {k: v for k, v in (step.get("extra") or {}).items() if k not in OWN_STEP_EXTRA}
        step["extra"] = extra or None
    final = data.get("final_metrics") or {}
    extra = {k: v for k, v in (final.get("extra") or {}).items() if k != "ending"}
    final["extra"] = extra or None
    return data


def _replace(value: Any, old: str, new: str) -> Any:
    """``value`` with ``old`` replaced by ``new`` in every string value (never in keys)."""
    if isinstance(value, dict):
        return {k: _replace(v, old, new) for k, v in value.items()}
    if isinstance(value, list):
        return [_replace(v, old, new) for v in value]
    return value.replace(old, new) if isinstance(value, str) else value


def field_differences(expected: Any, got: Any, where: str = "") -> list[str]:
    """Paths where two JSON values differ (at most 10), each with both values."""
    if isinstance(expected, dict) and isinstance(got, dict):
        found = []
        for key in sorted(set(expected) | set(got)):
            found += field_differences(expected.get(key), got.get(key), f"{where}.{key}")
        return found[:10]
    if isinstance(expected, list) and isinstance(got, list) and len(expected) == len(got):
        return [d for i, (a, b) in enumerate(zip(expected, got, strict=True))
                for d in field_differences(a, b, f"{where}[{i}]")][:10]
    return [] if expected == got else [f"{where}: terminus-2 {str(expected)[:200]!r} vs gen_0 {str(got)[:200]!r}"]


def assert_parity(terminus: Run, modular: Run) -> None:
    """Same prompts byte for byte, keystrokes, calls, reward, trial ending and trajectories."""
    for run in (terminus, modular):
        assert run.outcome.exception is None, run.outcome.exception
    assert modular.prompts == terminus.prompts, first_difference(terminus.prompts, modular.prompts)
    assert keystrokes(modular.main) == keystrokes(terminus.main)
    assert modular.outcome.reward == terminus.outcome.reward
    assert sorted(modular.trajectories) == sorted(terminus.trajectories)
    for key in AGENT_RESULT_FIELDS:
        assert modular.agent_result.get(key) == terminus.agent_result.get(key), f"agent_result.{key}"
    for name, expected in terminus.trajectories.items():
        a = normalised(expected, terminus.main["session_id"])
        b = normalised(modular.trajectories[name], modular.main["session_id"])
        assert b == a, f"{name}:\n" + "\n".join(field_differences(a, b))
