"""Call one function file's callables as the kernel would — in the confined function runtime — with a
loop state you choose: how to test a function you write (and how this project tests its catalogue).

    async with Probe(load_function(path, "mine"), turns=[...], instruction="...") as probe:
        probe.state.turn = 4                       # mirrored into the worker with the next call
        note = await probe.call("intervene")       # ctx is passed last, as the kernel passes it

Each call's result is checked against its contract (:func:`modularrsi.harness.kernel.check_result`);
``ctx.memo`` lasts as long as the probe. ``ctx.terminal`` and ``ctx.model`` answer with what
``terminal`` and ``model`` say (objects with the methods of :class:`~modularrsi.harness.protocols.Terminal`
and :class:`~modularrsi.harness.protocols.ModelAPI`); without them, and for every ``loop`` step, a
request fails as a missing one would.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable
from typing import Any

from modularrsi.harness import wire
from modularrsi.harness.kernel import check_result
from modularrsi.harness.library import Function
from modularrsi.harness.protocols import LoopState, Message, TurnRecord
from modularrsi.harness.session import Session, host_handlers


class _Absent:
    def __init__(self, what: str):
        self._what = what

    def __getattr__(self, name: str):
        def refuse(*args: Any) -> Any:
            raise wire.Malformed(f"{self._what}.{name}: not available in this probe")

        return refuse


class _Host(_Absent):
    """What the probed function may ask of the orchestrator."""

    def __init__(self, terminal: object | None, model: object | None):
        super().__init__("loop")
        self.terminal, self.model = terminal or _Absent("terminal"), model or _Absent("model")


class Probe:
    """One function in its own confined worker, for as long as the ``async with`` lasts."""

    def __init__(self, fn: Function, *, instruction: str = "", turns: Iterable[TurnRecord] = (),
                 history: Iterable[Message] = (), terminal: object | None = None, model: object | None = None,
                 timeout_s: float = 30.0):
        self.fn, self.key = fn, f"{fn.module}/{fn.name}"
        self.state = LoopState(instruction=instruction, turns=list(turns))
        self.mirror = wire.Mirror(self.state, list(history), owner=True)
        self._host, self._timeout_s = _Host(terminal, model), timeout_s
        self._session: Session | None = None

    async def __aenter__(self) -> Probe:
        self._session = await Session.start(self.mirror, self._timeout_s)
        self._session.handlers = host_handlers(self._host)
        functions = {self.key: {"source": self.fn.source, "parameters": dict(self.fn.parameters)}}
        await self._session.call("init", functions, self.state.instruction, {"deadline": None, "interventions": True})
        return self

    async def __aexit__(self, *exc: object) -> None:
        if self._session is not None:
            self._session.close()

    async def call(self, name: str, *args: Any) -> Any:
        """Callable ``name`` of the function with ``args`` (and ``ctx``, which the worker adds)."""
        assert self._session is not None, "use the probe inside 'async with'"
        return check_result(name, await self._session.call("call", self.key, name, list(args)))


def probe(fn: Function, name: str, *args: Any, **state: Any) -> Any:
    """One call of ``name`` in a fresh :class:`Probe` (``state``: its keyword arguments)."""
    async def once() -> Any:
        async with Probe(fn, **state) as p:
            return await p.call(name, *args)

    return asyncio.run(once())
