"""The confined end of the function runtime: one episode's worker (forked by
:mod:`modularrsi.harness.zygote`, inside bubblewrap, as an unprivileged user; never imported by
the orchestrator). It serves one episode over its socket with :mod:`modularrsi.harness.wire`
messages:

- from the orchestrator: ``{"id", "op": "init", "a": [functions, instruction, options]}`` (sources
  and parameters), ``{"id", "op": "call", "a": [key, callable, args]}``, ``{"id", "op": "run",
  "a": [key]}``, ``{"id", "op": "declare", "a": [source]}`` (what a file declares, for loading);
- to the orchestrator: requests for the only things a function can reach — ``terminal.*``,
  ``model.*`` and, for the agent-loop core, ``loop.*`` — answered by ``{"re": id, "ok"|"err"}``.

Calls nest (``run`` awaits ``loop.query``; serving it, the orchestrator calls ``parse`` here), so a
request waiting for its answer serves the requests that arrive first. Every message carries the
state delta (:class:`~modularrsi.harness.wire.Mirror`). The worker exits when its socket closes, and
at every message it receives re-arms its CPU time limit (:func:`rearm_cpu`).
"""

from __future__ import annotations

import asyncio
import itertools
import math
import os
import resource
import socket
import time
import types

from modularrsi.harness import wire
from modularrsi.harness.protocols import Ctx, LoopState
from modularrsi.models import base


class LimitReached(Exception):
    """A turn or time limit of the episode was reached (raised by the orchestrator's check)."""

    def __init__(self, reason: str, detail: str):
        super().__init__(detail)
        self.reason = reason


class HarnessError(RuntimeError):
    """The orchestrator could not do what was asked (or a nested function call failed)."""


#: Exceptions the orchestrator reports by name, raised here as the same kind so functions catch them
#: as they always could.
KINDS = {"LimitReached": LimitReached, "ModelError": base.ModelError, "ContextOverflow": base.ContextOverflow,
         "ModelUnavailable": base.ModelUnavailable, "BudgetExceeded": base.BudgetExceeded}


class Channel:
    """The worker's end of the episode socket: blocking, one call at a time, nested calls served."""

    def __init__(self, sock: socket.socket, mirror: wire.Mirror, call_cpu_s: int | None = None):
        self.sock, self.mirror, self.ids = sock, mirror, itertools.count(1)
        self.handler, self.call_cpu_s = None, call_cpu_s
        self.queued: list[dict] = []

    def notify(self, op: str, *args) -> None:
        """A request that answers nothing, sent with the next message (its order kept)."""
        self.queued.append({"op": op, "a": wire.encode(list(args), wire.Refs(self.mirror.history))})

    def send(self, message: dict) -> None:
        if self.queued:
            message["q"], self.queued = self.queued, []
        message["s"] = self.mirror.delta()
        self.sock.sendall(wire.frame(message))

    def receive(self) -> dict:
        size = wire.HEADER.unpack(self._exactly(wire.HEADER.size))[0]
        message = wire.unframe(self._exactly(size))
        rearm_cpu(self.call_cpu_s)
        self.mirror.apply(message.get("s"))
        return message

    def _exactly(self, n: int) -> bytes:
        chunks, left = [], n
        while left:
            chunk = self.sock.recv(min(left, 1 << 20))
            if not chunk:
                os._exit(0)
            chunks.append(chunk)
            left -= len(chunk)
        return b"".join(chunks)

    def request(self, op: str, *args):
        """Ask the orchestrator; serve its nested requests until the answer comes."""
        ident = next(self.ids)
        self.send({"id": ident, "op": op, "a": wire.encode(list(args), wire.Refs(self.mirror.history))})
        while True:
            message = self.receive()
            if message.get("re") == ident:
                if "err" in message:
                    raise _exception(message["err"])
                return wire.decode(message.get("ok"), self.mirror.history)
            self.serve(message)

    def serve(self, message: dict) -> None:
        try:
            result = self.handler(message["op"], message.get("a") or [])
            reply = {"re": message["id"], "ok": wire.encode(result, wire.Refs(self.mirror.history))}
        except BaseException as exc:  # noqa: BLE001 - every failure is reported, the worker goes on
            reply = {"re": message["id"], "err": _describe(exc)}
        try:
            self.send(reply)
        except wire.Malformed as exc:  # the state cannot be sent: notes that are not plain data
            self.mirror.reset_notes()
            self.send({"re": message["id"], "err": {"type": "Malformed", "msg": f"ctx.state.notes: {exc}"}})


def rearm_cpu(call_cpu_s: int | None) -> None:
    """Let the worker compute ``call_cpu_s`` CPU seconds from now (RLIMIT_CPU's soft limit: past it,
    SIGXCPU ends the worker); the hard limit stays (see ``runtime.worker_limits``)."""
    if call_cpu_s:
        usage, hard = resource.getrusage(resource.RUSAGE_SELF), resource.getrlimit(resource.RLIMIT_CPU)[1]
        soft = math.ceil(usage.ru_utime + usage.ru_stime) + call_cpu_s
        resource.setrlimit(resource.RLIMIT_CPU, (soft if hard == resource.RLIM_INFINITY else min(soft, hard), hard))


def _describe(exc: BaseException) -> dict:
    try:
        text = str(exc)[:2000]
    except Exception:  # noqa: BLE001 - an exception whose str() fails is still reported
        text = "(unprintable)"
    ref = getattr(exc, "ref", None)
    return {"type": type(exc).__name__, "msg": text, "ref": ref if type(ref) is int else None}


def _exception(err: dict) -> BaseException:
    kind = KINDS.get(err.get("type"), HarnessError)
    exc = kind(err.get("reason") or "", err.get("msg", "")) if kind is LimitReached else kind(err.get("msg", ""))
    exc.ref = err.get("ref")
    return exc


class TerminalProxy:
    """``ctx.terminal``: each method is a request to the orchestrator's terminal."""

    __slots__ = ("_c",)

    def __init__(self, channel: Channel):
        self._c = channel

    async def send_keys(self, keys: str, min_timeout_sec: float = 0.0) -> None:
        self._c.notify("terminal.send_keys", keys, min_timeout_sec)  # sent, in order, with the next message

    async def incremental_output(self) -> str:
        return self._c.request("terminal.incremental_output")

    async def screen(self) -> str:
        return self._c.request("terminal.screen")

    async def exec(self, command: str, timeout_sec: int | None = None) -> tuple[int, str]:
        return tuple(self._c.request("terminal.exec", command, timeout_sec))


class ModelProxy:
    """``ctx.model``: ask, context_limit and count_tokens, answered by the orchestrator's model."""

    __slots__ = ("_c", "_limit")

    def __init__(self, channel: Channel):
        self._c, self._limit = channel, None

    async def ask(self, messages, purpose: str) -> str:
        return self._c.request("model.ask", list(messages), purpose)

    def context_limit(self) -> int:
        if self._limit is None:  # a model's context window does not change during an episode
            self._limit = self._c.request("model.context_limit")
        return self._limit

    def count_tokens(self, messages) -> int:
        return self._c.request("model.count_tokens", list(messages))


class LoopProxy:
    """The ``loop`` the agent-loop core drives: the kernel's named steps, run by the orchestrator.
    Three answers need no round trip: ``check_limits`` when no limit is reached (the orchestrator
    raises when one is), ``interventions`` when no intervention is active, and ``record`` (sent
    with the next message)."""

    def __init__(self, channel: Channel, state: LoopState, options: dict):
        self._c, self.state = channel, state
        self._deadline, self._interventions = options.get("deadline"), options.get("interventions", True)

    async def initial_prompt(self):
        return self._c.request("loop.initial_prompt")

    async def maintain_context(self, prompt):
        return self._c.request("loop.maintain_context", prompt)

    async def query(self, prompt):
        return self._c.request("loop.query", prompt)

    def parse_error_feedback(self, reply):
        return self._c.request("loop.parse_error_feedback", reply)

    async def execute(self, reply):
        return self._c.request("loop.execute", reply)

    def observe(self, reply, output):
        return self._c.request("loop.observe", reply, output)

    def judge_completion(self, reply, output):
        return self._c.request("loop.judge_completion", reply, output)

    def interventions(self):
        return self._c.request("loop.interventions") if self._interventions else []

    def record(self, prompt, reply, output, response):
        self._c.notify("loop.record", prompt, reply, output, response)

    def check_limits(self):
        state = self.state
        if (state.max_turns is not None and state.turn >= state.max_turns) or (
                self._deadline is not None and time.monotonic() >= self._deadline):
            self._c.request("loop.check_limits")


#: One event loop per nesting depth, kept for the episode (a request made from a coroutine blocks
#: its loop, so a coroutine called meanwhile runs on the next one).
_LOOPS: list[asyncio.AbstractEventLoop] = []
_DEPTH = [0]


def run_coroutine(coroutine):
    """Run ``coroutine`` to its end, also while an outer coroutine is suspended in a request."""
    outer = asyncio.events._get_running_loop()
    asyncio.events._set_running_loop(None)
    depth = _DEPTH[0]
    if len(_LOOPS) <= depth:
        _LOOPS.append(asyncio.new_event_loop())
    _DEPTH[0] += 1
    try:
        return _LOOPS[depth].run_until_complete(coroutine)
    finally:
        _DEPTH[0] -= 1
        asyncio.events._set_running_loop(outer)


class Episode:
    """The functions of one episode and the context each sees."""

    def __init__(self, channel: Channel):
        self.channel, self.functions, self.memos, self.options = channel, {}, {}, {}
        self.terminal, self.model = TerminalProxy(channel), ModelProxy(channel)

    def __call__(self, op: str, args: list):
        if op == "declare":
            return declare(args[0])
        if op == "init":
            self.channel.mirror.state.instruction, self.options = args[1], args[2]
            return self.load(args[0])
        if op == "call":
            key, name, call_args = args
            call_args = wire.decode(call_args, self.channel.mirror.history)
            result = getattr(self.functions[key][0], name)(*call_args, self._ctx(key))
        elif op == "run":
            result = self.functions[args[0]][0].run(LoopProxy(self.channel, self.channel.mirror.state, self.options))
        else:
            raise HarnessError(f"unknown operation {op!r}")
        return run_coroutine(result) if asyncio.iscoroutine(result) else result

    def load(self, functions: dict) -> None:
        for key, spec in functions.items():
            module = types.ModuleType("_fn_" + key.replace("/", "_"))
            exec(compile(spec["source"], f"<function {key}>", "exec"), module.__dict__)  # noqa: S102
            self.functions[key] = (module, spec["parameters"])

    def _ctx(self, key: str) -> Ctx:
        mirror = self.channel.mirror
        return Ctx(state=mirror.state, terminal=self.terminal, model=self.model,
                   params=dict(self.functions[key][1]), memo=self.memos.setdefault(key, {}), history=mirror.history)


DECLARED = ("MODULE", "ROLE", "DESCRIPTION", "PARAMETERS")


def declare(source: str) -> dict:
    """Run a function file once and say what it declares (see ``runtime.declare``)."""
    import inspect

    from modularrsi.harness.protocols import CONTRACTS

    module = types.ModuleType("_fn_declared")
    try:
        exec(compile(source, "<function>", "exec"), module.__dict__)  # noqa: S102
    except BaseException as exc:  # noqa: BLE001 - reported: the generation is refused
        return {"error": f"{type(exc).__name__}: {str(exc)[:500]}"}
    names = {name for callables in CONTRACTS.values() for name in callables}
    kinds = {}
    for name in names:
        target = getattr(module, name, None)
        if target is not None:
            kinds[name] = ("async" if inspect.iscoroutinefunction(target) else "sync") if callable(target) else "value"
    values = {name: getattr(module, name) for name in DECLARED if hasattr(module, name)}
    try:
        values = wire.encode(values)
    except wire.Malformed as exc:
        return {"error": f"declarations must be plain data: {exc}"}
    return {"values": values, "callables": kinds}


def serve_episode(sock: socket.socket, call_cpu_s: int | None = None) -> None:
    mirror = wire.Mirror(LoopState(instruction=""), [], owner=False)
    channel = Channel(sock, mirror, call_cpu_s)
    channel.handler = Episode(channel)
    while True:
        channel.serve(channel.receive())
