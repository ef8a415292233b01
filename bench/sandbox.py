"""Exec latency of LocalSandbox against a plain subprocess, measured in the same run.

    python bench/sandbox.py [--n 200]

Prints median and p90 per exec of ``bash -c 'echo hi'`` for: a plain subprocess (the baseline),
a one-shot bubblewrap sandbox per command, LocalSandbox.exec through its exec server (one fork
inside the running sandbox) and LocalSandbox.exec with ``exec_server=false`` (a fresh nsenter chain
per command: cgroup join, namespaces, capability drop). Ratios are against the baseline of this run.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "support"))

from sandbox_helpers import make_sandbox  # noqa: E402
from testutil import write_task  # noqa: E402

from modularrsi.sandbox.host import host_root_entries  # noqa: E402
from modularrsi.util.outbound import apply_offline_defaults  # noqa: E402


async def timed(n: int, run) -> list[float]:
    samples = []
    for _ in range(n):
        start = time.perf_counter()
        await run()
        samples.append((time.perf_counter() - start) * 1000)
    return samples


async def plain() -> None:
    proc = await asyncio.create_subprocess_exec("bash", "-c", "echo hi", stdout=asyncio.subprocess.PIPE)
    await proc.communicate()


async def one_shot_bwrap() -> None:
    argv = ["bwrap"]
    for entry, link in host_root_entries():
        argv += ["--symlink", link, entry] if link else ["--ro-bind", entry, entry]
    argv += ["--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp", "--unshare-all", "--die-with-parent",
             "bash", "-c", "echo hi"]
    proc = await asyncio.create_subprocess_exec(*argv, stdout=asyncio.subprocess.PIPE)
    await proc.communicate()


def row(name: str, samples: list[float], base: float) -> str:
    median = statistics.median(samples)
    p90 = statistics.quantiles(samples, n=10)[-1]
    return f"| {name:<33} | {median:8.2f} | {p90:8.2f} | {median / base:6.2f}x |"


async def main(n: int) -> None:
    apply_offline_defaults()
    root = Path(tempfile.mkdtemp(prefix="bench-sandbox-"))
    task = write_task(root / "tasks")
    box = make_sandbox(task, root / "trial")
    chain = make_sandbox(task, root / "chain", exec_server=False)
    await box.start(force_build=False)
    await chain.start(force_build=False)
    try:
        results = {"plain subprocess (baseline)": await timed(n, plain),
                   "bwrap, new sandbox per exec": await timed(n, one_shot_bwrap),
                   "LocalSandbox.exec (exec server)": await timed(n, lambda: box.exec("echo hi")),
                   "LocalSandbox.exec (nsenter chain)": await timed(n, lambda: chain.exec("echo hi"))}
    finally:
        await box.stop(delete=True)
        await chain.stop(delete=True)
    base = statistics.median(results["plain subprocess (baseline)"])
    print(f"exec latency of `bash -c 'echo hi'`, n={n} each (ms)\n")
    print("| mode                              |   median |      p90 |  ratio |")
    print("|-----------------------------------|----------|----------|--------|")
    for name, samples in results.items():
        print(row(name, samples, base))


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=200)
    asyncio.run(main(parser.parse_args().n))
