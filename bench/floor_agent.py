"""The lifecycle floor: a Harbor agent that does no harness work at all.

It spends exactly the scripted episode's ideal time (model latency × turns + the commands' waits)
asleep, and makes the verifier pass with a single exec. Run through the same Harbor trial and
LocalSandbox as ModularAgent, it measures what the trial lifecycle alone (trial set-up, sandbox
start and stop, verifier, result files) costs at a given concurrency: the best rate any harness
could reach on this machine.
"""

from __future__ import annotations

import asyncio

from harbor.agents.base import BaseAgent
from harbor.agents.options import AgentOptions
from pydantic import Field


class FloorOptions(AgentOptions):
    episode_s: float = Field(description="Ideal episode time: the model latency of every turn, then the waits.")
    waits_s: float = Field(default=0.0, description="The part of episode_s that is command waits.")
    # Passed to every agent by the project's Runner (modularrsi.rollouts.runner); the floor uses none.
    seed: int | None = Field(default=None, description="Unused (the Runner's attempt seed).")
    attempt: int | None = Field(default=None, description="Unused (the Runner's attempt index).")
    max_turns: int | None = Field(default=None, description="Unused (the Runner's turn limit).")
    budget_path: str | None = Field(default=None, description="Unused (the Runner's budget ledger).")
    max_tokens: int | None = Field(default=None, description="Unused (the Runner's token cap).")
    max_cost_usd: float | None = Field(default=None, description="Unused (the Runner's cost cap).")


class FloorAgent(BaseAgent):
    options_model = FloorOptions

    @staticmethod
    def name() -> str:
        return "lifecycle-floor"

    def version(self) -> str:
        return "1"

    async def setup(self, environment) -> None:
        return None

    async def run(self, instruction, environment, context) -> None:
        opts: FloorOptions = self.options  # type: ignore[assignment]
        await asyncio.sleep(opts.episode_s - opts.waits_s)
        await environment.exec("echo done > /app/done.txt")
        await asyncio.sleep(opts.waits_s)
