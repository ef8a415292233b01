"""Costs of the confined function runtime: zygote start, a worker per episode, one round trip.

    python bench/runtime.py [--n 50]

Zygote start: bubblewrap + ``setpriv`` + Python + the pre-imports, once per orchestrating process.
Per episode: forking a worker now (``fresh``) or taking the spare forked ahead of time (``spare``),
then ``init`` (gen_0's five sources sent and run). Round trip: a call into the worker (``shape``),
and a call that itself asks the orchestrator once (``before_query`` → ``count_tokens``).
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import time

from modularrsi.harness import BASELINE
from modularrsi.harness.library import load_generation
from modularrsi.harness.protocols import LoopState, Message
from modularrsi.harness.runtime import Zygote, worker_limits
from modularrsi.harness.session import Session
from modularrsi.harness.wire import Mirror


def ms(samples: list[float]) -> str:
    p90 = sorted(samples)[int(len(samples) * 0.9)]
    return f"median {statistics.median(samples) * 1000:.2f} ms (p90 {p90 * 1000:.2f})"


class Model:
    def context_limit(self) -> int:
        return 128_000

    def count_tokens(self, messages: list[Message]) -> int:
        return sum(len(m.content) for m in messages) // 4


async def episode(sources: dict, n: int) -> dict[str, list[float]]:
    times: dict[str, list[float]] = {"start+init": [], "shape": [], "before_query": []}
    mirror = Mirror(LoopState("task"), [Message("user", "x" * 2000)] * 10, owner=True)
    started = time.perf_counter()
    session = await Session.start(mirror, 30.0)
    session.handlers = {"model.context_limit": Model().context_limit, "model.count_tokens": Model().count_tokens}
    await session.call("init", sources, "task", {})
    times["start+init"].append(time.perf_counter() - started)
    for _ in range(n):
        for label, args in (("shape", ("observation/limit_output", "shape", ["out"])),
                            ("before_query", ("context/summarize_on_pressure", "before_query", [mirror.history]))):
            t = time.perf_counter()
            await session.call("call", *args)
            times[label].append(time.perf_counter() - t)
    session.close()
    return times


def main(n: int) -> None:
    started = time.perf_counter()
    Zygote.current()
    print(f"zygote start: {(time.perf_counter() - started) * 1000:.0f} ms")
    fresh = []
    for _ in range(n):
        t = time.perf_counter()
        sock, pid = Zygote.fresh(worker_limits())
        fresh.append(time.perf_counter() - t)
        Zygote.kill(pid)
        sock.close()
    print(f"fork a worker: {ms(fresh)}")
    gen = load_generation(BASELINE)
    sources = {key: {"source": fn.source, "parameters": fn.parameters} for key, fn in gen.functions.items()}
    totals: dict[str, list[float]] = {}
    for _ in range(n):
        for label, values in asyncio.run(episode(sources, 10)).items():
            totals.setdefault(label, []).extend(values)
        time.sleep(0.02)  # as between episodes: the spare is forked meanwhile
    for label, values in totals.items():
        print(f"{label}: {ms(values)}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=50)
    main(parser.parse_args().n)
