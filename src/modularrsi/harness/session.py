"""The orchestrator's end of one episode's function worker (see :mod:`modularrsi.harness.runtime`).

A :class:`Session` sends calls to the worker (:meth:`Session.call`) and, while one is in flight,
serves the worker's requests — the only ways a function reaches the world — by running the
orchestrator's handlers (:func:`host_handlers`: the terminal, the model and the kernel's loop
steps) on plain values rebuilt by :mod:`modularrsi.harness.wire`. Requests are served concurrently
with the calls that caused them, so calls nest in both directions.

Invariants:
- an exception raised by a handler reaches the function as the same kind (limits, model errors);
  if the function lets it out, the orchestrator re-raises the *original* object, so an episode ends
  with the same ``Ending`` as when functions ran in-process;
- every other failure — the function raised, returned or sent something malformed, its worker died
  or it computed for longer than ``timeout_s`` without asking the orchestrator for anything (then
  the worker is killed) — is a :class:`FunctionError`; the orchestrator never crashes on one;
- the worker, and everything it started, is killed when a call overruns its time limit and when
  the episode ends (:meth:`Session.close`), however it ends.
"""

from __future__ import annotations

import asyncio
import inspect
import itertools
import time
from collections.abc import Callable
from typing import Any

from modularrsi.harness import wire
from modularrsi.harness.protocols import LoopAPI, ModelAPI, Terminal
from modularrsi.harness.runtime import MEMORY_MB, Worker, Zygote, worker_limits
from modularrsi.harness.steps import Step, steps

#: What a function may ask of the orchestrator: every step of these protocols, as ``<prefix>.<step>``.
SERVED: dict[str, type] = {"terminal": Terminal, "model": ModelAPI, "loop": LoopAPI}


class FunctionError(RuntimeError):
    """A function failed at run time (raised, overran its time limit, sent a malformed value, or its
    worker died): the episode ends with this harness error."""


class Session:
    """One episode's worker: :meth:`start`, :meth:`call`, :meth:`close`."""

    def __init__(self, worker: Worker, mirror: wire.Mirror, timeout_s: float):
        self.worker, self.pid, self.mirror, self.timeout_s = worker, worker.pid, mirror, timeout_s
        self.handlers: dict[str, Callable[..., Any]] = {}
        self._sock, self._loop = worker.sock, asyncio.get_running_loop()
        self._ids = itertools.count(1)
        self._pending: dict[int, asyncio.Future] = {}
        self._raised: dict[int, BaseException] = {}
        self._tasks: set[asyncio.Task] = set()
        self._timer: asyncio.TimerHandle | None = None
        self.dead: str | None = None
        self.fork_s = 0.0

    @classmethod
    async def start(cls, mirror: wire.Mirror, timeout_s: float, memory_mb: int | None = None) -> Session:
        started = time.perf_counter()
        limits = worker_limits(memory_mb or MEMORY_MB, call_s=timeout_s)
        worker = Zygote.spare(limits) or await _fresh(limits)
        session = cls(worker, mirror, timeout_s)
        session.fork_s = time.perf_counter() - started
        try:
            session._transport, _ = await session._loop.create_unix_connection(lambda: _Frames(session),
                                                                               sock=worker.sock)
        except BaseException:
            Zygote.kill(worker)
            worker.sock.close()
            raise
        return session

    # ------------------------------------------------------------ calls into the worker
    async def call(self, op: str, *args: Any) -> Any:
        if self.dead:
            raise FunctionError(self.dead)
        ident = next(self._ids)
        future = self._pending[ident] = self._loop.create_future()
        self._send({"id": ident, "op": op, "a": wire.encode(list(args), wire.Refs(self.mirror.history))})
        try:
            message = await future
        finally:
            self._pending.pop(ident, None)
        if "err" in message:
            raise self._error(message["err"])
        try:
            return wire.decode(message.get("ok"), self.mirror.history)
        except wire.Malformed as exc:
            raise FunctionError(f"malformed result: {exc}") from None

    def _error(self, err: Any) -> BaseException:
        if not isinstance(err, dict):
            return FunctionError("malformed error report")
        ref = err.get("ref")
        if type(ref) is int and ref in self._raised:
            return self._raised[ref]
        return FunctionError(f"{str(err.get('type'))[:80]}: {str(err.get('msg'))[:1000]}")

    # ------------------------------------------------------------ messages
    def _send(self, message: dict) -> None:
        message["s"] = self.mirror.delta()
        self._transport.write(wire.frame(message))
        self._arm()


    def _receive(self, message: dict) -> None:
        self._disarm()  # the worker is waiting now (or done)
        self.mirror.apply(message.get("s"))
        is_request = isinstance(message.get("op"), str) and type(message.get("id")) is int
        if "re" not in message and not is_request:
            raise wire.Malformed("neither a request nor an answer")
        if message.get("q"):
            self._spawn(self._handle(wire.expect(message["q"], list, "notifications"), message))
        elif is_request:
            self._spawn(self._serve(message))
        else:
            self._answered(message)

    def _spawn(self, coroutine) -> None:
        task = asyncio.create_task(coroutine)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def _answered(self, message: dict, failure: BaseException | None = None) -> None:
        future = self._pending.get(message["re"])
        if future is not None and not future.done():
            if failure is None:
                future.set_result(message)
            else:
                future.set_exception(failure)

    async def _handle(self, notes: list, message: dict) -> None:
        """Run the requests the worker sent without waiting (in order), then ``message``; the first
        that fails is the answer to ``message`` instead, as if the function had waited for it."""
        failure = None
        for note in notes:
            failure = failure or await self._notified(note)
        if "re" in message:
            self._answered(message, failure)
        else:
            await self._serve(message, failure)

    async def _notified(self, note: Any) -> Exception | None:
        try:
            if not isinstance(note, dict) or note.get("op") not in wire.NOTIFICATIONS:
                raise wire.Malformed("only record and send_keys may be sent without waiting")
            args = wire.expect(wire.decode(note.get("a"), self.mirror.history), list, "arguments")
            result = self.handlers[note["op"]](*args)
            if inspect.isawaitable(result):
                await result
        except wire.Malformed as exc:
            return FunctionError(f"malformed request: {exc}")
        except Exception as exc:  # noqa: BLE001 - handed to the function at its next request
            return exc
        return None

    async def _serve(self, message: dict, failure: BaseException | None = None) -> None:
        try:
            if failure is not None:
                raise failure
            handler = self.handlers.get(message["op"])
            if handler is None:
                raise wire.Malformed(f"no such request: {message['op'][:60]!r}")
            args = wire.decode(message.get("a") or [], self.mirror.history)
            result = handler(*wire.expect(args, list, "arguments"))
            if inspect.isawaitable(result):
                result = await result
            reply = {"re": message["id"], "ok": wire.encode(result, wire.Refs(self.mirror.history))}
        except Exception as exc:  # noqa: BLE001 - reported to the function, which may handle it
            reply = {"re": message["id"], "err": self._describe(exc)}
        if not self.dead:
            self._send(reply)

    def _describe(self, exc: Exception) -> dict:
        if isinstance(exc, wire.Malformed):
            exc = FunctionError(f"malformed request: {exc}")
        ref = len(self._raised) + 1
        self._raised[ref] = exc
        kind = type(exc).__name__ if type(exc).__name__ in wire.TYPED_ERRORS else "HarnessError"
        return {"type": kind, "msg": str(exc)[:2000], "ref": ref, "reason": getattr(exc, "reason", None)}

    # ------------------------------------------------------------ time limit and end
    def _arm(self) -> None:
        """Start the per-call clock: called on every message to the worker, which computes until its
        next message (a request, or an answer), when :meth:`_receive` stops the clock."""
        self._disarm()
        if self._pending and not self.dead:
            self._timer = self._loop.call_later(self.timeout_s, self._fail,
                                                f"a function computed for more than {self.timeout_s:g} s "
                                                "(the per-call time limit); its worker was killed")

    def _disarm(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def _fail(self, reason: str) -> None:
        if self.dead:
            return
        self.dead = reason
        self._disarm()
        for future in self._pending.values():
            if not future.done():
                future.set_exception(FunctionError(reason))
        self._kill()

    def _kill(self) -> None:
        Zygote.kill(self.worker)
        self._transport.close()

    def close(self) -> None:
        """Kill the worker (whatever it is doing) and stop serving it."""
        if not self.dead:
            self.dead = "episode over"
            self._disarm()
            self._kill()
        for task in list(self._tasks):
            task.cancel()


async def _fresh(limits: dict[str, int]) -> Worker:
    """A worker forked now (in a thread); if the episode is cancelled meanwhile, it is ended once forked."""
    forking = asyncio.ensure_future(asyncio.to_thread(Zygote.fresh, limits))
    try:
        return await asyncio.shield(forking)
    except asyncio.CancelledError:
        forking.add_done_callback(_end_unused)
        raise


def _end_unused(forking: asyncio.Future) -> None:
    if not forking.cancelled() and forking.exception() is None:
        Zygote.kill(forking.result())
        forking.result().sock.close()


class _Frames(asyncio.Protocol):
    """Cuts the worker's byte stream into messages and hands each to the session as it arrives."""

    def __init__(self, session: Session):
        self.session, self.buffer = session, bytearray()

    def data_received(self, data: bytes) -> None:
        if self.session.dead:
            return
        self.buffer += data
        try:
            while len(self.buffer) >= wire.HEADER.size:
                size = wire.HEADER.unpack_from(self.buffer)[0]
                if size > wire.MAX_MESSAGE:
                    raise wire.Malformed("message too large")
                if len(self.buffer) < wire.HEADER.size + size:
                    return
                body = bytes(self.buffer[wire.HEADER.size:wire.HEADER.size + size])
                del self.buffer[:wire.HEADER.size + size]
                self.session._receive(wire.unframe(body))
        except (wire.Malformed, TypeError, ValueError, KeyError, AttributeError) as exc:
            self.buffer.clear()
            self.session._fail(f"the function worker sent a malformed message: {str(exc)[:300]}")

    def connection_lost(self, exc: Exception | None) -> None:
        self.session._fail("the function worker exited (killed by a limit, or it ended itself)")


def host_handlers(kernel) -> dict[str, Callable[..., Any]]:
    """What a function may ask of the orchestrator: each step of :data:`SERVED`'s protocols, served by
    the kernel's terminal, model or the kernel itself, every argument checked against the step's type."""
    targets = {"terminal": kernel.terminal, "model": kernel.model, "loop": kernel}
    return {f"{prefix}.{step.name}": _checked(getattr(targets[prefix], step.name), step)
            for prefix, protocol in SERVED.items() for step in steps(protocol)}


def _checked(method: Callable[..., Any], step: Step) -> Callable[..., Any]:
    def handler(*args: Any) -> Any:
        try:
            bound = step.signature.bind(None, *args)
        except TypeError as exc:
            raise wire.Malformed(f"{step.name}: {exc}") from None
        bound.apply_defaults()
        values = [wire.expect(value, hint, name) for (name, hint), value in zip(step.params, bound.args[1:],
                                                                               strict=True)]
        return method(*(float(v) if hint is float else v for (_, hint), v in zip(step.params, values, strict=True)))

    return handler
