"""Run function source through the confined runtime with the static checks bypassed on purpose.

:func:`kernel_with` builds a real :class:`Kernel` over gen_0's functions plus *unchecked* ones: a
:class:`Function` made straight from source, never parsed by ``check_source`` nor imported here. The
host side has things worth stealing: a scripted model whose last reply is never asked for
(:data:`MODEL_SECRET`), a terminal whose ``environment`` records every use, the task directory.
Escape candidates report what they got in ``ctx.state.notes["results"]``, which the kernel mirrors.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import os
import socket
import textwrap
import time
from pathlib import Path

from modularrsi.harness import BASELINE, composer, wire
from modularrsi.harness.kernel import Kernel
from modularrsi.harness.library import Function, load_generation
from modularrsi.harness.runtime import Worker, Zygote
from modularrsi.harness.trajectory import TrajectoryRecorder
from modularrsi.offline.scripted import ScriptedModel

MODEL_SECRET = "MODEL-SECRET-7f3a9c"


def reply(commands=(), done=False) -> str:
    return json.dumps({"analysis": "a", "plan": "p", "task_complete": done,
                       "commands": [{"keystrokes": k, "duration": 0.0} for k in commands]})


class HostEnvironment:
    """Stands for Harbor's environment behind the terminal; records any use."""

    def __init__(self, task_dir: Path):
        self.environment_dir = task_dir / "environment"
        self.calls: list[str] = []

    async def upload_dir(self, *args):
        self.calls.append("upload_dir")

    async def download_file(self, *args):
        self.calls.append("download_file")

    async def exec(self, *args, **kwargs):
        self.calls.append("exec")


class HostTerminal:
    """The kernel's terminal for these tests (Harbor's tmux is tested elsewhere)."""

    def __init__(self, environment: HostEnvironment):
        self.environment, self.keys = environment, []

    async def send_keys(self, keys: str, min_timeout_sec: float = 0.0) -> None:
        self.keys.append(keys)

    async def incremental_output(self) -> str:
        return "$ "

    async def screen(self) -> str:
        return "$ "

    async def exec(self, command: str, timeout_sec: int | None = None) -> tuple[int, str]:
        return 0, ""


def unchecked(key: str, role: str, source: str) -> Function:
    module, name = key.split("/")
    return Function(name, module, role, "an escape candidate, never checked", {}, Path(f"<unchecked {key}>"),
                    hashlib.sha256(source.encode()).hexdigest(), source)


SHAPE = '''
MODULE = "observation"
ROLE = "additive"

def shape(output, ctx):
    try:
        result = attack(ctx)
    except BaseException as exc:
        result = "blocked: " + type(exc).__name__ + ": " + str(exc)
    ctx.state.notes.setdefault("results", []).append(str(result)[:3000])
    return output

def attack(ctx):
{body}
'''

CONTEXT = '''
MODULE = "context"
ROLE = "core"

async def before_query(history, ctx):
    try:
        result = await attack(ctx)
    except BaseException as exc:
        result = "blocked: " + type(exc).__name__ + ": " + str(exc)
    ctx.state.notes.setdefault("results", []).append(str(result)[:3000])
    return None

async def on_overflow(history, ctx):
    return history

async def attack(ctx):
{body}
'''


def shape_attack(body: str, **values) -> dict[str, tuple[str, str]]:
    """An observation function whose ``shape`` runs ``body`` (``{name}`` filled from ``values``)."""
    source = SHAPE.format(body=textwrap.indent(textwrap.dedent(body).format(**values), "    "))
    return {"observation/escape": ("additive", source)}


def context_attack(body: str, **values) -> dict[str, tuple[str, str]]:
    """A context core whose (async) ``before_query`` runs ``body``."""
    source = CONTEXT.format(body=textwrap.indent(textwrap.dedent(body).format(**values), "    "))
    return {"context/escape": ("core", source)}


def kernel_with(tmp_path: Path, task_dir: Path, functions: dict[str, tuple[str, str]], *,
                replies: list[str] | None = None, timeout_s: float = 10.0, memory_mb: int | None = None,
                max_turns: int | None = None, plant: dict[str, Path] | None = None,
                loaded: tuple[Function, ...] = ()) -> Kernel:
    """``plant``: symlinks to create in the logs directory before the kernel writes anything; ``loaded``:
    checked functions (with their parameters) put in beside ``functions``."""
    gen = load_generation(BASELINE)
    active = composer.resolve(gen, composer.static(gen))
    for fn in [unchecked(key, role, source) for key, (role, source) in functions.items()] + list(loaded):
        slot = active[fn.module]
        slot[:] = [f for f in slot if fn.role != "core" or f.role != "core"] + [fn]
    model = ScriptedModel(replies or [reply(["ls\n"]), reply(done=True), reply(done=True), MODEL_SECRET])
    logs = tmp_path / "logs"
    logs.mkdir(parents=True, exist_ok=True)
    for name, target in (plant or {}).items():
        (logs / name).symlink_to(target)
    recorder = TrajectoryRecorder(logs / "trajectory.json", "s", "modular-agent", "0", model.name, "g", {})
    return Kernel(active, model, HostTerminal(HostEnvironment(task_dir)), "Create /app/done.txt.", recorder,
                  logs / "module_trace.jsonl", function_timeout_s=timeout_s, function_memory_mb=memory_mb,
                  max_turns=max_turns)


async def run(kernel: Kernel, limit_s: float = 60.0):
    """The episode's Ending, or the exception that ended it; never waits longer than ``limit_s``."""
    try:
        return await asyncio.wait_for(kernel.run(), limit_s)
    except Exception as exc:  # noqa: BLE001 - the caller asserts on it
        return exc
    finally:
        if kernel.session is not None:
            kernel.session.close()


def results(kernel: Kernel) -> list[str]:
    return list(kernel.state.notes.get("results", []))


def host_visible(kernel: Kernel, tmp_path: Path) -> str:
    """Everything the host kept from the episode: notes, model calls, trace and trajectory."""
    logs = tmp_path / "logs"
    parts = [json.dumps(kernel.state.notes), json.dumps([[m.content for m in c] for c in kernel.model._model.calls])]
    parts += [p.read_text() for p in (logs / "module_trace.jsonl", logs / "trajectory.json") if p.exists()]
    return "\n".join(parts)


# ------------------------------------------------------------------ the processes of a worker, seen from the host
def sandbox_processes() -> list[tuple[int, int]]:
    """(pid in the sandbox, real uid) of every process under the current zygote's bubblewrap, zombies
    included: the zygote, its workers and anything they started (reparented to the sandbox's pid 1)."""
    root, parents, seen = Zygote._current._proc.pid, {}, {}
    for entry in filter(str.isdigit, os.listdir("/proc")):
        with contextlib.suppress(OSError, KeyError, ValueError), open(f"/proc/{entry}/status") as handle:
            status = dict(line.split(":\t", 1) for line in handle.read().splitlines() if ":\t" in line)
            parents[int(entry)] = int(status["PPid"])
            seen[int(entry)] = (int(status["NSpid"].split()[-1]), int(status["Uid"].split()[0]))

    def under(pid: int) -> bool:
        for _ in range(64):
            pid = parents.get(pid, 0)
            if pid in (root, 0):
                return pid == root
        return False

    return [facts for pid, facts in seen.items() if under(pid)]


def left_behind(pid: int, uid: int, deadline_s: float = 5.0) -> list[tuple[int, int]]:
    """What remains of worker ``pid`` (sandbox pid) running as ``uid``: its processes by pid or uid,
    polled until there are none or ``deadline_s`` has passed (a bound for a loaded machine, not a timing)."""
    ends = time.monotonic() + deadline_s
    while True:
        left = [p for p in sandbox_processes() if p[0] == pid or p[1] == uid]
        if not left or time.monotonic() > ends:
            return left
        time.sleep(0.05)


def declared(source: str, limits: dict[str, int]) -> tuple[dict, Worker]:
    """Run a file's top level in a fresh worker with these ``limits``: its declared values and the
    worker (its socket open: closing it would end the worker by itself)."""
    worker = Zygote.fresh(limits)
    worker.sock.settimeout(60)
    worker.sock.sendall(wire.frame({"id": 1, "op": "declare", "a": [source]}))
    size = wire.HEADER.unpack(worker.sock.recv(wire.HEADER.size, socket.MSG_WAITALL))[0]
    reply = wire.unframe(worker.sock.recv(size, socket.MSG_WAITALL))
    return wire.decode(reply["ok"]["values"]), worker
