"""A scripted episode served over real HTTP, shared by the harness and throughput benchmarks."""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "support"))

from testutil import write_task  # noqa: E402


def reply(commands, done=False):
    return json.dumps({"analysis": "a", "plan": "p", "task_complete": done,
                       "commands": [{"keystrokes": k, "duration": d} for k, d in commands]})


#: A short episode: explore, write the file, check it, claim, confirm.
EPISODE = [
    reply([("ls -la\n", 0.1)]),
    reply([("echo done > /app/done.txt\n", 0.1)]),
    reply([("cat /app/done.txt\n", 0.1)]),
    reply([], done=True),
    reply([], done=True),
]
WAIT_S = sum(c["duration"] for r in EPISODE for c in json.loads(r)["commands"])


def responder(latency_s: float = 0.0):
    """Answers by turn index (number of assistant messages so far), after ``latency_s``: stateless,
    so any number of attempts can share one server."""

    def answer(request: dict):
        turn = sum(1 for m in request["messages"] if m["role"] == "assistant")
        content = EPISODE[min(turn, len(EPISODE) - 1)]
        return {"delay": latency_s, "content": content} if latency_s else content

    return answer


def make_task(root: Path) -> Path:
    return write_task(root, "bench-episode")
