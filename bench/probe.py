"""What one orchestrator process is short of while a batch runs: CPU, event loop, threads, files.

A :class:`Probe` runs as a task on the orchestrator's own event loop and, every ``interval_s``:

- measures the loop's lag (how late a ``sleep(interval_s)`` wakes up: time the loop spent on other
  callbacks, or waiting for a CPU);
- reads the default thread pool's queue (``asyncio.to_thread`` work waiting for a worker) and its
  worker count against its maximum;
- counts open file descriptors against the soft limit.

On ``stop`` it adds the CPU time of the main thread (the one running the event loop: the GIL makes it
the ceiling of a single-process orchestrator), of the whole process, of a helper process (the model
server) and the host's idle share from ``/proc/stat`` (other users of the machine), all over the
batch's wall time. It only reads; it never changes what it watches.
"""

from __future__ import annotations

import asyncio
import os
import resource
import statistics
import sys
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

TICK = os.sysconf("SC_CLK_TCK")
STALL_S = 0.05  # a heartbeat this much overdue is a stall
STALL_SAMPLE_S = 0.01


def _cpu_s(stat_path: str) -> float:
    """utime + stime of a /proc/.../stat file, in seconds (0 when it is gone)."""
    try:
        with open(stat_path) as handle:
            fields = handle.read().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / TICK


def _host_idle() -> tuple[float, float]:
    """(idle + iowait ticks, all ticks) of the whole host."""
    with open("/proc/stat") as handle:
        values = [int(v) for v in handle.readline().split()[1:]]
    return values[3] + values[4], sum(values)


@dataclass
class Reading:
    """One batch's figures (shares are of one core over the batch's wall time, except host idle)."""

    wall_s: float
    main_thread_cpu: float
    process_cpu: float
    helper_cpu: float
    host_idle: float
    lag_ms_median: float
    lag_ms_p95: float
    lag_ms_max: float
    pool_queue_max: int
    pool_workers_max: int
    pool_limit: int
    fds_max: int
    fds_limit: int
    main_cpu_s: float = field(repr=False, default=0.0)
    stalls: Counter = field(repr=False, default_factory=Counter)


def bottleneck(reading: Reading) -> str:
    """The first limit this batch ran into, from its reading, checked from the outside in: the host,
    descriptors, the event loop's one core, the loop blocked by synchronous work, the thread pool."""
    stalled = sum(reading.stalls.values())
    if reading.host_idle < 0.10:
        return f"the host's CPUs ({reading.host_idle:.0%} idle): the figure is the machine's as much as the process's"
    if reading.fds_max >= 0.8 * reading.fds_limit:
        return f"file descriptors ({reading.fds_max} of {reading.fds_limit})"
    if reading.main_thread_cpu >= 0.70 or reading.lag_ms_median >= 50:
        return (f"the event loop's one core (main thread {reading.main_thread_cpu:.0%} busy, loop lag p50 "
                f"{reading.lag_ms_median:.0f} ms)")
    if stalled >= 0.10 * reading.wall_s:
        where = reading.stalls.most_common(1)[0][0].split(" [")[0]
        return (f"the event loop blocked by synchronous work ({stalled:.1f} s of {reading.wall_s:.0f} s; "
                f"most in {where})")
    if reading.pool_queue_max > 2 * reading.pool_limit:
        return f"the default thread pool (queue {reading.pool_queue_max}, {reading.pool_limit} workers)"
    return (f"none reached (main thread {reading.main_thread_cpu:.0%} busy, loop stalled {stalled:.1f} s of "
            f"{reading.wall_s:.0f} s)")


class Probe:
    def __init__(self, helper_pid: int | None = None, interval_s: float = 0.1):
        self.helper_pid, self.interval_s = helper_pid, interval_s
        self.lags: list[float] = []
        self.queue_max = self.workers_max = self.fds_max = 0
        self._task: asyncio.Task | None = None
        self._beat = time.monotonic()
        self._stalls: Counter = Counter()
        self._done = threading.Event()
        self._main = f"/proc/self/task/{threading.main_thread().native_id}/stat"
        self._helper = f"/proc/{helper_pid}/stat" if helper_pid else ""

    def _cpu_now(self) -> tuple[float, float, float, tuple[float, float], float]:
        times = os.times()
        return (_cpu_s(self._main), times.user + times.system, _cpu_s(self._helper) if self._helper else 0.0,
                _host_idle(), time.perf_counter())

    async def __aenter__(self) -> Probe:
        self._start = self._cpu_now()
        self._task = asyncio.create_task(self._watch())
        threading.Thread(target=self._watchdog, daemon=True).start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        assert self._task is not None
        self._task.cancel()
        self._done.set()
        self.reading = self._read(self._cpu_now())

    async def _watch(self) -> None:
        loop = asyncio.get_running_loop()
        while True:
            before = loop.time()
            self._beat = time.monotonic()
            await asyncio.sleep(self.interval_s)
            self.lags.append((loop.time() - before - self.interval_s) * 1000)
            pool = getattr(loop, "_default_executor", None)
            if pool is not None:
                self.queue_max = max(self.queue_max, pool._work_queue.qsize())
                self.workers_max = max(self.workers_max, len(pool._threads))
            self.fds_max = max(self.fds_max, len(os.listdir("/proc/self/fd")))

    def _watchdog(self) -> None:
        """From its own thread: while the loop's heartbeat is overdue, sample where the main thread is."""
        main = threading.main_thread().ident
        while not self._done.wait(STALL_SAMPLE_S):
            if time.monotonic() - self._beat > self.interval_s + STALL_S:
                state = _state(self._main)  # read first: the frame lookup waits for the GIL
                frame = sys._current_frames().get(main)
                self._stalls[f"{state} {_where(frame)}"] += 1

    def _read(self, end: tuple) -> Reading:
        (main0, proc0, helper0, (idle0, ticks0), t0), (main1, proc1, helper1, (idle1, ticks1), t1) = self._start, end
        wall, main = t1 - t0, main1 - main0
        idle_share = (idle1 - idle0) / max(1, ticks1 - ticks0)
        lags = sorted(self.lags) or [0.0]
        pool = getattr(asyncio.get_running_loop(), "_default_executor", None)
        return Reading(wall_s=wall, main_thread_cpu=main / wall, process_cpu=(proc1 - proc0) / wall,
                       helper_cpu=(helper1 - helper0) / wall,
                       host_idle=idle_share, lag_ms_median=statistics.median(lags),
                       lag_ms_p95=lags[int(0.95 * (len(lags) - 1))], lag_ms_max=lags[-1],
                       pool_queue_max=self.queue_max, pool_workers_max=self.workers_max,
                       pool_limit=pool._max_workers if pool is not None else min(32, (os.cpu_count() or 1) + 4),
                       fds_max=self.fds_max, fds_limit=resource.getrlimit(resource.RLIMIT_NOFILE)[0],
                       main_cpu_s=main, stalls=Counter({k: v * STALL_SAMPLE_S for k, v in self._stalls.items()}))


def _state(stat_path: str) -> str:
    """The kernel's scheduling state of a thread: R running or waiting for a CPU, D waiting for the
    disk, S sleeping (a lock, a socket, the GIL)."""
    try:
        with open(stat_path) as handle:
            return handle.read().rsplit(")", 1)[1].split()[0]
    except OSError:
        return "?"


def _where(frame) -> str:
    """The innermost frames of a stack that are ours, Harbor's or LiteLLM's, plus the frame it stands in."""
    names, leaf = [], None
    while frame is not None:
        code = frame.f_code
        leaf = leaf or f"{Path(code.co_filename).name}:{code.co_name}"
        if any(part in code.co_filename for part in ("modularrsi", "harbor", "litellm", "bench")):
            names.append(f"{Path(code.co_filename).name}:{code.co_name}")
            if len(names) == 3:
                break
        frame = frame.f_back
    return " < ".join(names) + f" [in {leaf}]"
