"""Resource limits for one sandbox: cgroups where writable (v1 hybrid or v2), rlimits otherwise.

A :class:`Limits` value says what a task asked for; :func:`make_enforcer` returns the strongest
enforcer this host allows. An enforcer wraps every command started in the sandbox (so its whole
process tree is charged to the sandbox) or says, as data (``join_spec``), how a process joins it by
itself; it reports limit hits since the last look, kills everything it holds, and removes itself.
"""

from __future__ import annotations

import contextlib
import os
import re
import shlex
import signal
import time
import tomllib
from dataclasses import dataclass
from pathlib import Path

CGROUP_ROOT = Path("/sys/fs/cgroup")


@dataclass(frozen=True)
class Limits:
    """Per-sandbox ceilings; ``None`` means no ceiling."""

    cpus: float | None = None
    memory_mb: int | None = None
    pids_max: int | None = 1024


@dataclass(frozen=True)
class LimitHits:
    """Counters of limit events; compare two readings to see what happened in between."""

    oom_kills: int = 0
    pids_refused: int = 0

    def since(self, earlier: LimitHits) -> LimitHits:
        return LimitHits(self.oom_kills - earlier.oom_kills, self.pids_refused - earlier.pids_refused)

    def describe(self, limits: Limits) -> str | None:
        if self.oom_kills > 0:
            return f"memory limit of {limits.memory_mb} MB exceeded: process killed (OOM)"
        if self.pids_refused > 0:
            return f"process limit of {limits.pids_max} reached: fork refused {self.pids_refused} time(s)"
        return None


class RlimitEnforcer:
    """Fallback when no cgroup is writable: per-process rlimits (weaker: not per tree)."""

    kind = "rlimit"

    def __init__(self, limits: Limits):
        self.limits = limits

    def wrap(self, argv: list[str]) -> list[str]:
        opts = []
        if self.limits.memory_mb:
            opts.append(f"--as={self.limits.memory_mb * 1024 * 1024 * 2}")
        if self.limits.pids_max:
            opts.append(f"--nproc={self.limits.pids_max}")
        return ["prlimit", *opts, "--", *argv] if opts else argv

    def join_spec(self) -> dict:
        """What ``wrap`` does, as data: rlimits (soft = hard) by ``resource`` name."""
        rlimits = {}
        if self.limits.memory_mb:
            rlimits["RLIMIT_AS"] = self.limits.memory_mb * 1024 * 1024 * 2
        if self.limits.pids_max:
            rlimits["RLIMIT_NPROC"] = self.limits.pids_max
        return {"cgroup_procs": [], "rlimits": rlimits}

    def hits(self) -> LimitHits:
        return LimitHits()

    def kill_all(self) -> None:
        return None

    def kill_except(self, keep: set[int], pid_ns: str) -> None:
        """Best effort without cgroups: SIGKILL every process in the pid namespace ``pid_ns`` (a
        ``/proc/PID/ns/pid`` link text) except ``keep`` (nested pid namespaces are missed)."""
        _kill_until_gone(lambda: [p for p in _all_pids() if p not in keep and _pid_ns(p) == pid_ns])

    def remove(self) -> None:
        return None


class CgroupEnforcer:
    """One cgroup per controller (v1) or one unified cgroup (v2) for one sandbox."""

    kind = "cgroup"

    def __init__(self, limits: Limits, dirs: dict[str, Path], unified: bool):
        self.limits = limits
        self.dirs = dirs
        self.unified = unified

    @classmethod
    def create(cls, name: str, limits: Limits) -> CgroupEnforcer:
        unified = not (CGROUP_ROOT / "memory").is_dir()
        wanted = [""] if unified else ["memory", "pids", "cpu"]
        dirs = {}
        for controller in wanted:
            base = _own_cgroup(controller) / "modularrsi"
            reap_orphans(base)
            path = base / f"{owner_tag()}.{name}"
            path.mkdir(parents=True, exist_ok=True)
            dirs[controller or "unified"] = path
        enforcer = cls(limits, dirs, unified)
        enforcer._apply()
        return enforcer

    def _write(self, controller: str, name: str, value: str) -> None:
        (self.dirs[controller] / name).write_text(value)

    def _apply(self) -> None:
        lim = self.limits
        if self.unified:
            if lim.memory_mb:
                self._write("unified", "memory.max", str(lim.memory_mb * 1024 * 1024))
                _try_write(self.dirs["unified"] / "memory.swap.max", "0")
            if lim.pids_max:
                self._write("unified", "pids.max", str(lim.pids_max))
            if lim.cpus:
                self._write("unified", "cpu.max", f"{int(lim.cpus * 100000)} 100000")
            return
        if lim.memory_mb:
            self._write("memory", "memory.limit_in_bytes", str(lim.memory_mb * 1024 * 1024))
            _try_write(self.dirs["memory"] / "memory.memsw.limit_in_bytes",
                       str(lim.memory_mb * 1024 * 1024))
        if lim.pids_max:
            self._write("pids", "pids.max", str(lim.pids_max))
        if lim.cpus:
            self._write("cpu", "cpu.cfs_period_us", "100000")
            self._write("cpu", "cpu.cfs_quota_us", str(int(lim.cpus * 100000)))

    def wrap(self, argv: list[str]) -> list[str]:
        """Move the starting shell into the sandbox's cgroups, then exec ``argv``."""
        joins = "; ".join(f"echo 0 > {shlex.quote(str(d / 'cgroup.procs'))}" for d in self.dirs.values())
        return ["/bin/sh", "-c", f'{joins}; exec "$@"', "sh", *argv]

    def join_spec(self) -> dict:
        """What ``wrap`` does, as data: the ``cgroup.procs`` files to write one's own pid into."""
        return {"cgroup_procs": [str(d / "cgroup.procs") for d in self.dirs.values()], "rlimits": {}}

    def hits(self) -> LimitHits:
        if self.unified:
            events = _read_kv(self.dirs["unified"] / "memory.events")
            pids = _read_kv(self.dirs["unified"] / "pids.events")
            return LimitHits(events.get("oom_kill", 0), pids.get("max", 0))
        oom = _read_kv(self.dirs["memory"] / "memory.oom_control").get("oom_kill", 0)
        pids = _read_kv(self.dirs["pids"] / "pids.events").get("max", 0)
        return LimitHits(oom, pids)

    def pids(self) -> list[int]:
        found: set[int] = set()
        for d in self.dirs.values():
            try:
                found |= {int(p) for p in (d / "cgroup.procs").read_text().split()}
            except OSError:
                continue
        return sorted(found)

    def kill_all(self) -> None:
        """SIGKILL every process in the sandbox's cgroups until none is left (fork-bomb safe)."""
        if not self.unified:
            _try_write(self.dirs["pids"] / "pids.max", "1")
        elif (self.dirs["unified"] / "cgroup.kill").exists():
            _try_write(self.dirs["unified"] / "cgroup.kill", "1")
        deadline = time.monotonic() + 5
        while (pids := self.pids()) and time.monotonic() < deadline:
            for pid in pids:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGKILL)
            time.sleep(0.01)

    def kill_except(self, keep: set[int], pid_ns: str) -> None:
        """SIGKILL every process in the sandbox's cgroups except ``keep``, with forks refused meanwhile
        (pids.max clamped to 1, then restored), so a fork bomb cannot outrun it."""
        limit = self.dirs.get("pids", self.dirs.get("unified"))
        _try_write(limit / "pids.max", "1")
        try:
            _kill_until_gone(lambda: [p for p in self.pids() if p not in keep])
        finally:
            _try_write(limit / "pids.max", str(self.limits.pids_max or "max"))

    def remove(self) -> None:
        for d in self.dirs.values():
            for _ in range(100):
                try:
                    d.rmdir()
                    break
                except FileNotFoundError:
                    break
                except OSError:
                    time.sleep(0.02)


def owner_tag(pid: int | None = None) -> str:
    """``<pid>.<start time>`` of a process (this one by default): a cgroup named with it belongs to that
    process, and a pid reused by a later process does not claim it."""
    pid = pid or os.getpid()
    return f"{pid}.{_start_ticks(pid)}"


def _start_ticks(pid: int) -> int | None:
    try:
        return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[19])
    except (OSError, IndexError, ValueError):
        return None


_REAPED: set[Path] = set()
_OWNED = re.compile(r"^(\d+)\.(\d+)\.")
_LEGACY = re.compile(r"-(\d+)-[0-9a-f]+$")


def reap_orphans(base: Path) -> None:
    """Once per process and cgroup root: kill what is left in, and remove, every sandbox cgroup under
    ``base`` whose orchestrator no longer runs (one killed with SIGKILL never removed its own)."""
    if base in _REAPED or not base.is_dir():
        return
    _REAPED.add(base)
    for path in base.iterdir():
        if not path.is_dir() or _owner_runs(path.name):
            continue
        _kill_until_gone(lambda p=path: _procs_of(p), timeout_s=5.0)
        with contextlib.suppress(OSError):
            path.rmdir()


def _owner_runs(name: str) -> bool:
    """Whether the orchestrator a sandbox cgroup is named after still runs (unknown names: assume so)."""
    if owned := _OWNED.match(name):
        return owner_tag(int(owned[1])) == f"{owned[1]}.{owned[2]}"
    if legacy := _LEGACY.search(name):  # ``<session>-<pid>-<hex>``, as earlier versions named them
        return Path(f"/proc/{legacy[1]}").exists()
    return True


def _procs_of(path: Path) -> list[int]:
    try:
        return [int(p) for p in (path / "cgroup.procs").read_text().split()]
    except OSError:
        return []


def _kill_until_gone(find, timeout_s: float = 10.0) -> None:
    deadline = time.monotonic() + timeout_s
    while (pids := find()) and time.monotonic() < deadline:
        for pid in pids:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        time.sleep(0.01)


def _all_pids() -> list[int]:
    return [int(p) for p in os.listdir("/proc") if p.isdigit()]


def _pid_ns(pid: int) -> str | None:
    try:
        return os.readlink(f"/proc/{pid}/ns/pid")
    except OSError:
        return None


def _own_cgroup(controller: str) -> Path:
    """The cgroup this process sits in for ``controller`` ('' = unified), as a path."""
    for line in Path("/proc/self/cgroup").read_text().splitlines():
        _, controllers, rel = line.split(":", 2)
        if controller in controllers.split(",") or (controller == "" and controllers == ""):
            return CGROUP_ROOT / controller / rel.lstrip("/")
    return CGROUP_ROOT / controller


def _read_kv(path: Path) -> dict[str, int]:
    try:
        text = path.read_text()
    except OSError:
        return {}
    return {m.group(1): int(m.group(2)) for m in re.finditer(r"^(\S+)\s+(\d+)$", text, re.M)}


def _try_write(path: Path, value: str) -> None:
    with contextlib.suppress(OSError):
        path.write_text(value)


def make_enforcer(name: str, limits: Limits) -> CgroupEnforcer | RlimitEnforcer:
    """Cgroups when this host lets us create them, otherwise rlimits."""
    try:
        return CgroupEnforcer.create(name, limits)
    except OSError:
        return RlimitEnforcer(limits)


def task_limits(task_toml: Path, cpus: float | None, memory_mb: int | None, pids_override: int | None) -> Limits:
    """The ceilings of a task: its cpus and memory, and ``pids_max`` from the option, else from
    ``[environment]`` of its ``task.toml`` (unreadable: ignored), else 1024."""
    try:
        environment = tomllib.loads(task_toml.read_text()).get("environment", {})
    except (OSError, tomllib.TOMLDecodeError):
        environment = {}
    pids = pids_override or environment.get("pids_max") or 1024
    return Limits(cpus=cpus, memory_mb=memory_mb, pids_max=int(pids))
