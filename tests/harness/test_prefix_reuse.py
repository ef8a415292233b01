"""gen_0 keeps a local server's prompt cache useful: every request of an episode extends the one before it
(same messages, in order, byte for byte, then the reply and the new observation), so a llama.cpp or vLLM
server reuses the cached prefix instead of reading the whole history again each turn."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from testutil import REPO

from modularrsi.offline.fake_server import FakeOpenAIServer

TASK = REPO / "tasks" / "pool" / "argparse-logq-cli"
KEY = "MODULARRSI_PREFIX_KEY"


def reply(turn: int) -> str:
    keystrokes = ["ls -la\n", "head -3 README* 2>/dev/null; pwd\n", "echo three > /tmp/n.txt && wc -c /tmp/n.txt\n"]
    commands = [[{"keystrokes": k, "duration": 0.2}] for k in keystrokes]
    if turn < len(commands):
        return json.dumps({"analysis": f"turn {turn}", "plan": "look around", "commands": commands[turn],
                           "task_complete": False})
    return json.dumps({"analysis": "done", "plan": "stop", "commands": [], "task_complete": True})


def test_each_request_of_an_episode_extends_the_previous_one(tmp_path):
    turns: list[int] = []

    def respond(request: dict) -> str:
        turns.append(len(turns))
        return reply(turns[-1])

    with FakeOpenAIServer(responder=respond) as server:
        config = tmp_path / "c.yaml"
        config.write_text(f"tasks: [{TASK}]\nk: 1\nmax_turns: 8\nroles: {{agent: {{model: hosted_vllm/prefix, "
                          f"api_base: '{server.base_url}', api_key_env: {KEY}, max_retries: 0}}}}\n")
        done = subprocess.run([sys.executable, "-m", "modularrsi.cli", "run", "--config", str(config), "--out",
                               str(tmp_path / "run")], capture_output=True, text=True, timeout=600,
                              env={**os.environ, KEY: "k", "COLUMNS": "300"})
        requests = [r["messages"] for r in server.requests]
    assert done.returncode in (0, 2), done.stderr[-2000:]  # the task is not solved; the episode is what counts
    assert len(requests) >= 4, requests
    for i in range(1, len(requests)):
        before, now = requests[i - 1], requests[i]
        assert now[:len(before)] == before, f"request {i} rewrote the history of request {i - 1}"
        assert now[len(before)]["role"] == "assistant" and len(now) > len(before) + 1
