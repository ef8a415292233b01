"""bench/small_tier/rehearse.py: the analyst and reviewer roles of an evolve config, run on trials a model
already made (here against the fake server), print each finding and verdict."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys

import yaml
from testutil import REPO

from modularrsi.offline.fake_server import FakeOpenAIServer

TASK = REPO / "tasks" / "small" / "pool" / "package-release-tag"
FINDING = {"concerns": "harness", "is_culprit": True, "locked_module": "tool_use", "divergence": "replies refused",
           "would_change_outcome": True, "fixable_now": True, "mechanism": "parse-repair", "evidence_steps": [1],
           "suggested_change": "repair unparseable replies before refusing them"}


SOLVE = {"keystrokes": "jq -r '\"\\(.name)@\\(.version)\"' /app/package.json > /app/release.txt\n", "duration": 1}


def responder_of(started: list[int]):
    """The agent solves the task in its first attempt and claims completion at once in its second (attempts
    run one at a time), so the task is mixed and reaches the analyst."""
    def respond(request: dict) -> str:
        messages = request["messages"]
        system = messages[0]["content"]
        if system.startswith("You analyse trajectories"):
            return json.dumps(FINDING)
        if system.startswith("You review one proposed change"):
            return json.dumps({"approve": True, "reason": "generic: acts the same on every task"})
        if len(messages) <= 2:
            started.append(1)
            if len(started) == 1:
                return json.dumps({"analysis": "a", "plan": "p", "commands": [SOLVE], "task_complete": False})
        return json.dumps({"analysis": "a", "plan": "p", "commands": [], "task_complete": True})
    return respond


def untimed(text: str) -> str:
    return re.sub(r" \[\d+ s\]", "", text)


def test_findings_and_verdicts_of_a_real_runs_trials(tmp_path):
    env = {**os.environ, "LOCAL_MODEL_KEY": "local", "COLUMNS": "200"}
    with FakeOpenAIServer(responder=responder_of([])) as server:
        settings = yaml.safe_load((REPO / "bench" / "small_tier" / "evolve-catalogue.yaml").read_text())
        for role in settings["roles"].values():
            if role["model"] != "sim":
                role["api_base"] = server.base_url
        settings.update(manifest=None, eval_manifest=None)
        config = tmp_path / "arm.yaml"
        config.write_text(yaml.safe_dump(settings))
        agent = tmp_path / "agent.yaml"
        agent.write_text(yaml.safe_dump({"max_turns": 4, "roles": {"agent": settings["roles"]["agent"]}}))
        made = subprocess.run([str(REPO / ".venv" / "bin" / "modularrsi"), "run", "--config", str(agent), "--tasks",
                               str(TASK), "-k", "2", "-n", "1", "--env", "local", "--out", str(tmp_path / "run")],
                              capture_output=True, text=True, timeout=600, cwd=REPO, env=env)
        assert made.returncode == 0, made.stdout[-2000:] + made.stderr[-2000:]

        def rehearse():
            done = subprocess.run(
                [sys.executable, str(REPO / "bench" / "small_tier" / "rehearse.py"), str(tmp_path / "run"),
                 "--config", str(config), "--tasks", TASK.name, "--lenses", "tool_use", "--review", "json_repair",
                 "--out", str(tmp_path / "rehearse")], capture_output=True, text=True, timeout=600, cwd=tmp_path,
                env=env)
            assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
            return done.stdout

        out = rehearse()
        asked = len(server.requests)
        assert f"2 attempts of 1 tasks; analysed: {TASK.name}" in out
        assert f"analyst  tool_use    {TASK.name}: culprit tool_use, parse-repair - replies refused" in out
        assert "reviewer json_repair: approved - reviewer: generic: acts the same on every task" in out
        assert untimed(rehearse()) == untimed(out) and len(server.requests) == asked  # again: all from its cache
