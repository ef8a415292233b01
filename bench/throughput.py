"""Attempts per minute against the ideal, latency-bound rate, at concurrency 1, 4 and 16.

    python bench/throughput.py [--latency 1.0] [--attempts 8] [--repeats 1]

A scripted model answers every request after a fixed latency (a local fake OpenAI-compatible server,
real HTTP through LiteLLM). One attempt is a 5-turn episode whose ideal duration is turns × latency
+ the commands' waits; the ideal rate at concurrency c is c × 60 / that. Printed as measured/ideal
(target ≥ 0.9 at 16): the gap is what sandboxes, tmux, Harbor and the harness cost.

Each row also runs the lifecycle floor (``floor_agent.py``): the same Harbor trials and sandboxes
with an agent that only sleeps the ideal episode, so floor/ideal is the best any harness could do
here and harness/floor is the harness's own share. With ``--repeats R`` each figure is the median
of R runs, with their range.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import subprocess
import sys
import tempfile
import time
from contextlib import contextmanager
from pathlib import Path

from episode import EPISODE, WAIT_S, make_task
from harbor.models.trial.config import AgentConfig

from modularrsi.tasks.trials import environment_config, run_trial
from modularrsi.util.outbound import apply_offline_defaults


def harness_agent(url: str) -> AgentConfig:
    return AgentConfig(import_path="modularrsi.harness:ModularAgent", model_name="openai/fake-model",
                       kwargs={"api_base": url, "api_key_env": "OPENAI_API_KEY"})


def floor_agent(latency: float) -> AgentConfig:
    return AgentConfig(import_path="floor_agent:FloorAgent",
                       kwargs={"episode_s": len(EPISODE) * latency + WAIT_S, "waits_s": WAIT_S})


async def batch(agent: AgentConfig, task: Path, out: Path, concurrency: int, attempts: int) -> float:
    env = environment_config("local")
    gate = asyncio.Semaphore(concurrency)

    async def one(i: int) -> None:
        async with gate:
            outcome = await run_trial(task, agent, out, env, f"c{concurrency}-{i}")
            assert outcome.reward == 1.0, outcome.exception

    start = time.perf_counter()
    await asyncio.gather(*(one(i) for i in range(attempts)))
    return time.perf_counter() - start


@contextmanager
def model_server(latency: float):
    """The scripted model in its own process, as a real endpoint would be (no GIL shared with the
    orchestrator); yields its base URL."""
    code = ("import sys, time; sys.path.insert(0, sys.argv[2]); from episode import responder; "
            "from modularrsi.offline.fake_server import FakeOpenAIServer; "
            "s = FakeOpenAIServer(responder=responder(float(sys.argv[1]))); s.start(); "
            "print(s.base_url, flush=True); time.sleep(10**6)")
    proc = subprocess.Popen([sys.executable, "-c", code, str(latency), str(Path(__file__).parent)],
                            stdout=subprocess.PIPE, text=True)
    try:
        yield proc.stdout.readline().strip()
    finally:
        proc.kill()
        proc.wait()


def spread(values: list[float]) -> str:
    middle = statistics.median(values)
    return f"{middle:.2f}" if len(values) == 1 else f"{middle:.2f} ({min(values):.2f}–{max(values):.2f})"


async def main(latency: float, attempts: int, repeats: int) -> None:
    os.environ.setdefault("OPENAI_API_KEY", "sk-bench")
    root = Path(tempfile.mkdtemp(prefix="bench-throughput-"))
    task = make_task(root / "tasks")
    ideal_attempt_s = len(EPISODE) * latency + WAIT_S
    print(f"scripted model latency {latency:.2f} s; one attempt = {len(EPISODE)} turns, ideal "
          f"{ideal_attempt_s:.2f} s\n")
    print("| concurrency | attempts | wall s | attempts/min | ideal/min | harness/ideal    | floor/ideal      "
          "| harness/floor    |")
    print("|-------------|----------|--------|--------------|-----------|------------------|------------------"
          "|------------------|")
    with model_server(latency) as url:
        harness, floor = harness_agent(url), floor_agent(latency)
        for name, agent in (("harness", harness), ("floor", floor)):  # imports, caches: not part of the rate
            await batch(agent, task, root / f"warmup-{name}", 1, 1)
        for concurrency in (1, 4, 16):
            n = max(4, attempts * concurrency // 8)
            ideal = min(concurrency, n) * 60 / ideal_attempt_s
            walls, floors = [], []
            for r in range(repeats):
                walls.append(await batch(harness, task, root / f"c{concurrency}-{r}", concurrency, n))
                floors.append(await batch(floor, task, root / f"f{concurrency}-{r}", concurrency, n))
            rates = [n * 60 / w for w in walls]
            floor_rates = [n * 60 / w for w in floors]
            print(f"| {concurrency:>11} | {n:>8} | {statistics.median(walls):6.1f} | "
                  f"{statistics.median(rates):12.1f} | {ideal:9.1f} | {spread([r / ideal for r in rates]):<16} | "
                  f"{spread([f / ideal for f in floor_rates]):<16} | "
                  f"{spread([r / f for r, f in zip(rates, floor_rates, strict=True)]):<16} |", flush=True)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--latency", type=float, default=1.0)
    parser.add_argument("--attempts", type=int, default=8, help="attempts per 8 of concurrency")
    parser.add_argument("--repeats", type=int, default=1, help="runs per figure (the median is printed)")
    args = parser.parse_args()
    apply_offline_defaults()
    asyncio.run(main(args.latency, args.attempts, args.repeats))
