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
request waiting for its answer serves the requests that arrive first. The proxies are built from
the protocols that declare them (:func:`proxy`), and every method of theirs answers without
suspending, so a function's coroutine runs to its end in one step (:func:`finish`): no event loop.
Every message carries the state delta (:class:`~modularrsi.harness.wire.Mirror`). The worker exits
when its socket closes, and at every message it receives re-arms its CPU time limit (:func:`rearm_cpu`).
"""

from __future__ import annotations

import inspect
import itertools
import math
import os
import resource
import socket
import time
import types
from typing import Any, get_origin

from modularrsi.harness import wire
from modularrsi.harness.protocols import DECLARED, Ctx, LimitReached, LoopAPI, LoopState, ModelAPI, Terminal
from modularrsi.harness.steps import Step, steps
from modularrsi.models import base


class HarnessError(RuntimeError):
    """The orchestrator could not do what was asked (or a nested function call failed)."""


#: Exceptions the orchestrator reports by name, raised here as the same kind so functions catch them
#: as they always could.
KINDS = {name: LimitReached if name == "LimitReached" else getattr(base, name) for name in wire.TYPED_ERRORS}


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


def proxy(protocol: type, prefix: str) -> type:
    """A class whose methods are ``protocol``'s steps, each sent to the orchestrator as
    ``<prefix>.<step>`` (a notification when :data:`~modularrsi.harness.wire.NOTIFICATIONS` says so)
    with the step's own signature: a function calls them as the protocol declares."""
    methods = {step.name: _forward(step, f"{prefix}.{step.name}") for step in steps(protocol)}
    return type(f"{protocol.__name__}Proxy", (), {"__slots__": (), **methods})


def _forward(step: Step, op: str):
    lists = [get_origin(hint) is list for _, hint in step.params]
    as_tuple = get_origin(step.returns) is tuple

    def send(self, *args: Any, **kwargs: Any) -> Any:
        bound = step.signature.bind(self, *args, **kwargs)
        bound.apply_defaults()
        values = [list(v) if is_list else v for is_list, v in zip(lists, bound.args[1:], strict=True)]
        if op in wire.NOTIFICATIONS:
            return self._c.notify(op, *values)
        result = self._c.request(op, *values)
        return tuple(result) if as_tuple else result

    async def send_awaited(self, *args: Any, **kwargs: Any) -> Any:
        return send(self, *args, **kwargs)

    method = send_awaited if step.is_async else send
    method.__name__, method.__signature__ = step.name, step.signature
    return method


class TerminalProxy(proxy(Terminal, "terminal")):
    """``ctx.terminal``: each method is a request to the orchestrator's terminal."""

    __slots__ = ("_c",)

    def __init__(self, channel: Channel):
        self._c = channel


class ModelProxy(proxy(ModelAPI, "model")):
    """``ctx.model``: ask, context_limit and count_tokens, answered by the orchestrator's model."""

    __slots__ = ("_c", "_limit")

    def __init__(self, channel: Channel):
        self._c, self._limit = channel, None

    def context_limit(self) -> int:
        if self._limit is None:  # a model's context window does not change during an episode
            self._limit = super().context_limit()
        return self._limit


class LoopProxy(proxy(LoopAPI, "loop")):
    """The ``loop`` the agent-loop core drives: the kernel's named steps, run by the orchestrator.
    Three answers need no round trip: ``check_limits`` when no limit is reached (the orchestrator
    raises when one is), ``interventions`` when no intervention is active, and ``record`` (sent
    with the next message)."""

    def __init__(self, channel: Channel, state: LoopState, options: dict):
        self._c, self.state = channel, state
        self._deadline, self._interventions = options.get("deadline"), options.get("interventions", True)

    def interventions(self) -> list[str]:
        return super().interventions() if self._interventions else []

    def check_limits(self) -> None:
        state = self.state
        if (state.max_turns is not None and state.turn >= state.max_turns) or (
                self._deadline is not None and time.monotonic() >= self._deadline):
            super().check_limits()


def finish(coroutine):
    """Run a function's coroutine to its end. All it may await are the proxies' methods, which answer
    without suspending, so it ends at its first step; one that suspends awaited something else, which
    nothing here would resume."""
    try:
        coroutine.send(None)
    except StopIteration as done:
        return done.value
    coroutine.close()
    raise HarnessError("a function awaited something other than the methods of ctx and loop, "
                       "the only awaitables a function has")


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
        return finish(result) if inspect.iscoroutine(result) else result

    def load(self, functions: dict) -> None:
        for key, spec in functions.items():
            module = types.ModuleType("_fn_" + key.replace("/", "_"))
            exec(compile(spec["source"], f"<function {key}>", "exec"), module.__dict__)  # noqa: S102
            self.functions[key] = (module, spec["parameters"])

    def _ctx(self, key: str) -> Ctx:
        mirror = self.channel.mirror
        return Ctx(state=mirror.state, terminal=self.terminal, model=self.model,
                   params=dict(self.functions[key][1]), memo=self.memos.setdefault(key, {}), history=mirror.history)


def declare(source: str) -> dict:
    """Run a function file once and say what it declares (see ``runtime.declare``)."""
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
