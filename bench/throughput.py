"""Attempts per minute against the ideal, latency-bound rate, at concurrency 1, 4 and 16.

    python bench/throughput.py [--latency 1.0] [--attempts 8]

A scripted model answers every request after a fixed latency (a local fake OpenAI-compatible server,
real HTTP through LiteLLM). One attempt is a 5-turn episode whose ideal duration is turns × latency
+ the commands' waits; the ideal rate at concurrency c is c × 60 / that. Printed as measured/ideal
(target ≥ 0.9 at 16): the gap is what sandboxes, tmux, Harbor and the harness cost.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import subprocess
import sys
import tempfile
import time
from contextlib import contextmanager
from pathlib import Path

from episode import EPISODE, WAIT_S, make_task
from harbor.models.trial.config import AgentConfig

from modularrsi.offline import apply_offline_defaults
from modularrsi.tasks.trials import environment_config, run_trial


async def batch(url: str, task: Path, out: Path, concurrency: int, attempts: int) -> float:
    env = environment_config("local")
    agent = AgentConfig(import_path="modularrsi.harness:ModularAgent", model_name="openai/fake-model",
                        kwargs={"api_base": url, "api_key_env": "OPENAI_API_KEY"})
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
            "from modularrsi.models.fake_server import FakeOpenAIServer; "
            "s = FakeOpenAIServer(responder=responder(float(sys.argv[1]))); s.start(); "
            "print(s.base_url, flush=True); time.sleep(10**6)")
    proc = subprocess.Popen([sys.executable, "-c", code, str(latency), str(Path(__file__).parent)],
                            stdout=subprocess.PIPE, text=True)
    try:
        yield proc.stdout.readline().strip()
    finally:
        proc.kill()
        proc.wait()


async def main(latency: float, attempts: int) -> None:
    os.environ.setdefault("OPENAI_API_KEY", "sk-bench")
    root = Path(tempfile.mkdtemp(prefix="bench-throughput-"))
    task = make_task(root / "tasks")
    ideal_attempt_s = len(EPISODE) * latency + WAIT_S
    print(f"scripted model latency {latency:.2f} s; one attempt = {len(EPISODE)} turns, ideal "
          f"{ideal_attempt_s:.2f} s\n")
    print("| concurrency | attempts | wall s | attempts/min | ideal/min | measured/ideal |")
    print("|-------------|----------|--------|--------------|-----------|----------------|")
    with model_server(latency) as url:
        await batch(url, task, root / "warmup", 1, 1)  # imports, caches: not part of the rate
        for concurrency in (1, 4, 16):
            n = max(4, attempts * concurrency // 8)
            wall = await batch(url, task, root / f"c{concurrency}", concurrency, n)
            rate, ideal = n * 60 / wall, min(concurrency, n) * 60 / ideal_attempt_s
            print(f"| {concurrency:>11} | {n:>8} | {wall:6.1f} | {rate:12.1f} | {ideal:9.1f} | {rate / ideal:14.2f} |")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--latency", type=float, default=1.0)
    parser.add_argument("--attempts", type=int, default=8, help="attempts per 8 of concurrency")
    args = parser.parse_args()
    apply_offline_defaults()
    asyncio.run(main(args.latency, args.attempts))
