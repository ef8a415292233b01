"""Attempts per minute with the sandboxes elsewhere: one orchestrator process at concurrency 16, 64 and 256.

    cd bench && ../.venv/bin/python remote.py [--quick] [--latency 1.0] [--waves 4]
                                              [--start-s 2 --exec-s 0.08 --upload-s 0.15 --download-s 0.15 --stop-s 0.5]

Every attempt is a real Harbor trial started by the project's runner (``modularrsi.rollouts.run.execute``,
the code behind ``modularrsi run``) in ``remote_env:RemoteStandIn``: a sandbox that only sleeps a
remote-like round trip per start / exec / upload / download / stop and answers from memory, so no
sandbox work lands on this host. Two agents run the same task:

- harness: ``modularrsi.harness:ModularAgent`` (gen_0) with tmux in the stand-in, on the scripted
  5-turn episode of ``episode.py`` served over real HTTP through LiteLLM with ``--latency`` per turn
  (the model server is a separate process, like a provider);
- floor: ``floor_agent.py``, which sleeps the same episode and makes one exec: the trial lifecycle alone.

Ideal: what the latencies alone allow. Each attempt's ideal duration is the union of the stand-in's
nominal waits for that trial, plus (harness) model calls × latency and the part of each command's
wait the send-keys round trip does not already cover, or (floor) its sleeps; the ideal rate at
concurrency c is c × 60 / the mean ideal duration. A batch is ``--waves`` × c attempts (default 4): the
rate is what the process sustains, with the one-off ramp (the first c trials created one after another)
and the last wave's tail weighing 1/waves, not 1/2 as in a two-wave batch. Printed
as measured/ideal, next to what the orchestrator was short of (see ``probe.py``): main-thread CPU
(one core is the ceiling of one event loop), event-loop lag, the default thread pool's queue, file
descriptors, the stretch each attempt got beyond its own ideal, and where the loop stalled.
``--quick``: concurrency 8 and 32, one wave (about a minute); ``--concurrency 64 --waves 1`` for one
point; ``--no-budget-file`` keeps the harness's model calls off the run's budget.json (the runner
always gives attempts a ledger file, rewritten with fsync after every metered call), to see what
those writes cost.
"""

from __future__ import annotations

import argparse
import asyncio
import datetime as dt
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from contextlib import contextmanager
from pathlib import Path

from episode import EPISODE, WAIT_S, make_task
from harbor.models.trial.result import TrialResult
from probe import Probe, Reading, bottleneck
from remote_env import RemoteStandIn

from modularrsi.rollouts.config import RunConfig
from modularrsi.rollouts.run import execute
from modularrsi.util.files import write_json
from modularrsi.util.outbound import apply_offline_defaults

HARNESS, FLOOR = "harness", "floor"


@contextmanager
def model_server(latency: float):
    """The scripted model in its own process, with a listen backlog a provider would have (the stdlib
    default of 5 drops connections when hundreds of attempts open theirs at once); yields (URL, pid)."""
    code = ("import sys, time; sys.path.insert(0, sys.argv[2]); from episode import responder; "
            "from http.server import ThreadingHTTPServer; ThreadingHTTPServer.request_queue_size = 4096; "
            "from modularrsi.offline.fake_server import FakeOpenAIServer; "
            "s = FakeOpenAIServer(responder=responder(float(sys.argv[1]))); s.start(); "
            "print(s.base_url, flush=True); time.sleep(10**6)")
    proc = subprocess.Popen([sys.executable, "-c", code, str(latency), str(Path(__file__).parent)],
                            stdout=subprocess.PIPE, text=True)
    try:
        yield proc.stdout.readline().strip(), proc.pid
    finally:
        proc.kill()
        proc.wait()


def run_config(agent: str, task: Path, concurrency: int, attempts: int, latencies: dict, url: str,
               latency: float, budget_file: bool = True) -> RunConfig:
    if agent == HARNESS:
        path, model = "modularrsi.harness:ModularAgent", {"model": "openai/fake-model", "api_base": url,
                                                          "api_key_env": "OPENAI_API_KEY"}
        kwargs = {} if budget_file else {"budget_path": None}
    else:
        path, model = "floor_agent:FloorAgent", {"model": "sim"}  # calls no model; a name the preflight accepts
        kwargs = {"episode_s": len(EPISODE) * latency + WAIT_S, "waits_s": WAIT_S}
    return RunConfig(tasks=[task], k=attempts, concurrency=concurrency, env="remote_env:RemoteStandIn",
                     env_kwargs=latencies, agent=path, roles={"agent": model}, agent_kwargs=kwargs, cache=False)


def union_s(spans: list[tuple[float, float, str]]) -> float:
    total, end = 0.0, float("-inf")
    for start, stop, _ in sorted(spans):
        if stop > end:
            total += stop - max(start, end)
            end = stop
    return total


def agent_ideal_s(agent: str, result: TrialResult, latency: float, exec_s: float) -> float:
    """The agent's own unavoidable time beyond the environment's waits."""
    if agent == FLOOR:
        return len(EPISODE) * latency + WAIT_S
    calls = int((result.agent_result.metadata or {}).get("model_calls", len(EPISODE)))
    waits = [c["duration"] for r in EPISODE for c in json.loads(r)["commands"]]
    return calls * latency + sum(max(0.0, w - exec_s) for w in waits)


def phase_s(timing) -> float:
    return (timing.finished_at - timing.started_at).total_seconds() if timing and timing.finished_at else 0.0


def trial_figures(agent: str, run_dir: Path, latency: float, exec_s: float, began: dt.datetime) -> dict:
    """Mean ideal attempt, median stretch (wall − ideal), median time outside Harbor's phases, and when
    the last attempt started and finished (seconds after the batch began)."""
    ideals, stretches, outside, failed, calls, starts, ends, model = [], [], [], 0, Counter(), [], [], []
    for path in sorted((run_dir / "trials").glob("*/result.json")):
        result = TrialResult.model_validate_json(path.read_text())
        spans = RemoteStandIn.spans.get(path.parent.name, [])
        calls.update(operation for _, _, operation in spans)
        ideal = union_s(spans) + agent_ideal_s(agent, result, latency, exec_s)
        wall = (result.finished_at - result.started_at).total_seconds()
        phases = sum(phase_s(t) for t in (result.environment_setup, result.agent_setup, result.agent_execution,
                                          result.verifier))
        meta = (result.agent_result.metadata or {}) if result.agent_result else {}
        if "model_latency_s" in meta:  # the harness: time in model calls beyond the server's own latency
            model.append(meta["model_latency_s"] - meta["model_calls"] * latency)
        starts.append((result.started_at - began).total_seconds())
        ends.append((result.finished_at - began).total_seconds())
        ideals.append(ideal)
        stretches.append(wall - ideal)
        outside.append(wall - phases)
        rewards = (result.verifier_result.rewards or {}) if result.verifier_result else {}
        failed += rewards.get("reward") != 1
    return {"ideal_s": statistics.mean(ideals), "stretch_s": statistics.median(stretches),
            "outside_s": statistics.median(outside), "failed": failed, "n": len(ideals),
            "last_start_s": max(starts), "last_end_s": max(ends),
            "model_stretch_s": statistics.median(model) if model else float("nan"),
            "calls": {op: count / len(ideals) for op, count in sorted(calls.items())}}


def write_latency_ms(folder: Path, n: int = 20) -> tuple[float, float]:
    """Median and worst time of the project's atomic JSON write (temp file, fsync, rename) in ``folder``."""
    times = []
    for i in range(n):
        started = time.perf_counter()
        write_json(folder / "probe.json", {"i": i})
        times.append((time.perf_counter() - started) * 1000)
    return statistics.median(times), max(times)


async def batch(config: RunConfig, run_dir: Path, helper_pid: int) -> tuple[float, Reading, dt.datetime]:
    RemoteStandIn.spans.clear()
    async with Probe(helper_pid) as probe:
        began, started = dt.datetime.now(dt.UTC), time.perf_counter()
        await execute(config, run_dir)
        wall = time.perf_counter() - started
    return wall, probe.reading, began


def print_rows(rows: list[dict]) -> None:
    print("| agent   |    c | attempts | wall s | attempts/min | ideal/min | ratio | ideal s/att | stretch s/att "
          "| failed |")
    print("|---------|------|----------|--------|--------------|-----------|-------|-------------|---------------"
          "|--------|")
    for r in rows:
        print(f"| {r['agent']:<7} | {r['c']:>4} | {r['n']:>8} | {r['wall']:6.1f} | {r['rate']:12.1f} | "
              f"{r['ideal_rate']:9.1f} | {r['rate'] / r['ideal_rate']:5.2f} | {r['ideal_s']:11.2f} | "
              f"{r['stretch_s']:13.2f} | {r['failed']:>6} |")
    print("\norchestrator while each batch ran (CPU as a share of one core over the batch; host idle: the whole "
          "machine, other users included)\n")
    print("| agent   |    c | main-thread CPU | process CPU | CPU ms/att | model server CPU | host idle "
          "| loop lag ms p50/p95/max | pool queue max (workers/limit) | fds max/limit | outside phases s "
          "| last start / end s | model-call stretch s/att |")
    print("|---------|------|-----------------|-------------|------------|------------------|-----------"
          "|-------------------------|--------------------------------|---------------|------------------"
          "|--------------------|--------------------------|")
    for r in rows:
        p: Reading = r["probe"]
        print(f"| {r['agent']:<7} | {r['c']:>4} | {p.main_thread_cpu:15.0%} | {p.process_cpu:11.0%} | "
              f"{p.main_cpu_s * 1000 / r['n']:10.0f} | {p.helper_cpu:16.0%} | {p.host_idle:9.0%} | "
              f"{p.lag_ms_median:7.0f} / {p.lag_ms_p95:5.0f} / {p.lag_ms_max:5.0f} | "
              f"{p.pool_queue_max:>14} ({p.pool_workers_max}/{p.pool_limit}){'':>8} | "
              f"{p.fds_max:>5} / {p.fds_limit:<5} | {r['outside_s']:16.2f} | "
              f"{r['last_start_s']:7.1f} / {r['last_end_s']:6.1f} | {r['model_stretch_s']:24.2f} |")
    print("\nfirst bottleneck (from the readings above: host, descriptors, the loop's core, the loop blocked, "
          "the thread pool)\n")
    for r in rows:
        print(f"- {r['agent']} c={r['c']}: {bottleneck(r['probe'])}")
    print("\nwhere the event loop stalled (heartbeat over 50 ms late; seconds sampled on the main "
          "thread, top 3 places)\n")
    for r in rows:
        stalls: Counter = r["probe"].stalls
        states = Counter()
        for where, seconds in stalls.items():
            states[where.split()[0]] += seconds
        print(f"- {r['agent']} c={r['c']}: {sum(stalls.values()):.1f} s stalled ("
              + ", ".join(f"{state} {seconds:.1f} s" for state, seconds in states.most_common()) + ")")
        for where, seconds in stalls.most_common(3):
            print(f"    {seconds:5.1f} s  {where}")


async def main(args: argparse.Namespace) -> None:
    os.environ.setdefault("OPENAI_API_KEY", "sk-bench")
    latencies = {"start_s": args.start_s, "exec_s": args.exec_s, "upload_s": args.upload_s,
                 "download_s": args.download_s, "stop_s": args.stop_s}
    concurrencies, waves = ((8, 32), 1) if args.quick else (tuple(args.concurrency), args.waves)
    root = Path(tempfile.mkdtemp(prefix="bench-remote-"))
    task = make_task(root / "tasks")
    print(f"remote stand-in: {', '.join(f'{k} {v:g}' for k, v in latencies.items())}; scripted model "
          f"{args.latency:g} s per turn, {len(EPISODE)} turns; {waves} wave(s) of c attempts; {os.cpu_count()} "
          f"CPUs; load average {os.getloadavg()[0]:.1f} at start\n", flush=True)
    median_ms, worst_ms = write_latency_ms(root)
    print(f"one fsync'd atomic JSON write (modularrsi.util.files.write_json) here: median {median_ms:.1f} ms, "
          f"worst {worst_ms:.1f} ms of 20\n", flush=True)
    rows = []
    with model_server(args.latency) as (url, pid):
        for agent in (HARNESS, FLOOR):  # imports and caches are not part of the rate
            await execute(run_config(agent, task, 1, 1, latencies, url, args.latency), root / f"warmup-{agent}")
        for c in concurrencies:
            for agent in (HARNESS, FLOOR):
                n = c * waves
                run_dir = root / f"{agent}-c{c}"
                config = run_config(agent, task, c, n, latencies, url, args.latency, not args.no_budget_file)
                wall, reading, began = await batch(config, run_dir, pid)
                figures = trial_figures(agent, run_dir, args.latency, args.exec_s, began)
                rows.append({"agent": agent, "c": c, "n": n, "wall": wall, "rate": n * 60 / wall,
                             "ideal_rate": c * 60 / figures["ideal_s"], "probe": reading, **figures})
                print(f"  {agent} c={c}: {wall:.1f} s", file=sys.stderr, flush=True)
    print_rows(rows)
    for agent in (HARNESS, FLOOR):
        calls = next(r["calls"] for r in rows if r["agent"] == agent)
        print(f"\n{agent}: round trips per attempt: " + ", ".join(f"{op} {n:g}" for op, n in calls.items()), end="")
    print()
    print(f"\nrun directories: {root}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="concurrency 8 and 32, one wave")
    parser.add_argument("--latency", type=float, default=1.0, help="scripted model latency per turn (s)")
    parser.add_argument("--waves", type=int, default=4, help="attempts per batch = waves × concurrency")
    parser.add_argument("--concurrency", type=int, nargs="+", default=[16, 64, 256])
    parser.add_argument("--no-budget-file", action="store_true",
                        help="harness attempts meter nothing to the run's budget.json (what its writes cost)")
    for name, default in (("start", 2.0), ("exec", 0.08), ("upload", 0.15), ("download", 0.15), ("stop", 0.5)):
        parser.add_argument(f"--{name}-s", type=float, default=default, help=f"stand-in {name} round trip (s)")
    arguments = parser.parse_args()
    apply_offline_defaults()
    asyncio.run(main(arguments))
