"""A LiteLLM-named fake model that tosses a coin, and what a run directory says of it (the eval tests)."""

from __future__ import annotations

import itertools
import json

from modularrsi.offline.fake_server import FakeOpenAIServer
from modularrsi.rollouts.results import RunResults

SOLVE = [{"keystrokes": "echo done > /app/done.txt\n", "duration": 0.5}]


def coin_model():
    """A first reply that solves the task every other time it is drawn; every later reply claims done."""
    coins = itertools.cycle([True, False])

    def respond(request: dict) -> str:
        solve = len(request["messages"]) == 1 and next(coins)
        return json.dumps({"analysis": "a", "plan": "p", "commands": SOLVE if solve else [], "task_complete": True})

    return FakeOpenAIServer(responder=respond)


def rewards(run_dir) -> dict[tuple[str, int], float | None]:
    results = RunResults.model_validate_json((run_dir / "results.json").read_text())
    return {(a.task, a.attempt): a.reward for a in results.attempts}


def model_calls(run_dir) -> int:
    return sum(json.loads(p.read_text())["model_calls"] for p in run_dir.glob("trials/*/agent/episode.json"))
