"""What crosses the function runtime's boundary: plain JSON data, checked on arrival.

Both ends (the orchestrator and the confined worker, :mod:`modularrsi.harness.worker`) import this
module, so it uses only the standard library and :mod:`modularrsi.harness.protocols`.

- A message is one JSON object behind a 4-byte big-endian length (at most :data:`MAX_MESSAGE`).
- The contract's values (:class:`Action`, :class:`Reply`, :class:`Verdict`, :class:`Ending`,
  :class:`Message`, :class:`TurnRecord`) travel as ``{"__t": name, field: value, ...}`` and are
  rebuilt field by field with their types checked; anything else that is not JSON is refused
  (:class:`Malformed`). Nothing but JSON is ever decoded, so no object of one side reaches the other.
- :class:`Mirror` keeps the loop's state and history equal on both sides by sending, with every
  message, only what changed since the last one (scalars, notes, new turns, appended messages).
"""

from __future__ import annotations

import json
import struct
import types
from dataclasses import is_dataclass
from typing import Any, Literal, Union, get_args, get_origin, get_type_hints

from modularrsi.harness.protocols import Action, Ending, LoopState, Message, Reply, TurnRecord, Verdict, type_text

HEADER = struct.Struct(">I")
MAX_MESSAGE = 64 << 20
#: The values that cross the boundary, each checked field by field against its own type hints.
WIRE_TYPES: dict[str, type] = {cls.__name__: cls for cls in (Action, Reply, Verdict, Ending, Message, TurnRecord)}
_FIELDS = {name: get_type_hints(cls) for name, cls in WIRE_TYPES.items()}
#: Endings only the kernel records (a function never returns one).
KERNEL_ENDINGS = ("harness_error",)
#: The loop state's scalar fields (sent both ways when they change).
SCALARS: dict[str, object] = {k: h for k, h in get_type_hints(LoopState).items() if h in (int, bool, int | None)}
#: Requests the worker sends without waiting for an answer (handlers that return None): they travel
#: with its next message and run, in order, before it.
NOTIFICATIONS = ("loop.record", "terminal.send_keys")
#: Exceptions of the orchestrator that functions see as the same kind (everything else: ``HarnessError``).
TYPED_ERRORS = ("LimitReached", "ModelError", "ContextOverflow", "ModelUnavailable", "BudgetExceeded")


class Malformed(ValueError):
    """A value that may not cross the boundary, or arrived in a shape it may not have."""


def encode(value: Any, refs: Refs | None = None) -> Any:
    """``value`` as JSON-ready data; :class:`Malformed` for anything outside the contract. A message
    of the mirrored history (``refs``) travels as its index ``{"__h": i}``."""
    if value is None or isinstance(value, bool | int | float | str):
        return value
    if refs is not None and type(value) is Message and (index := refs.index(value)) is not None:
        return {"__h": index}
    name = type(value).__name__
    if WIRE_TYPES.get(name) is type(value):
        return {"__t": name, **{key: encode(getattr(value, key)) for key in _FIELDS[name]}}
    if isinstance(value, list | tuple):
        return [encode(v, refs) for v in value]
    if isinstance(value, dict) and all(isinstance(k, str) for k in value) and not {"__t", "__h"} & set(value):
        return {k: encode(v, refs) for k, v in value.items()}
    raise Malformed(f"a {type(value).__name__} cannot cross the function boundary (plain data only)")


def decode(value: Any, history: list[Message] | None = None) -> Any:
    """Rebuild contract values in data that came from :func:`json.loads` (``{"__h": i}``: message
    ``i`` of ``history``, the receiver's mirrored history)."""
    if isinstance(value, list):
        return [decode(v, history) for v in value]
    if isinstance(value, dict):
        if "__h" in value:
            index = value["__h"]
            if history is None or type(index) is not int or not 0 <= index < len(history) or len(value) != 1:
                raise Malformed("bad history reference")
            return history[index]
        if "__t" in value:
            return _build(value)
        return {k: decode(v, history) for k, v in value.items()}
    return value


class Refs:
    """Finds a message of ``history`` by identity (the index map is built on first use)."""

    def __init__(self, history: list[Message]):
        self.history, self._ids = history, None

    def index(self, message: Message) -> int | None:
        if self._ids is None:
            self._ids = {id(m): i for i, m in enumerate(self.history)}
        return self._ids.get(id(message))


def _build(data: dict) -> Any:
    name = data["__t"]
    if name not in WIRE_TYPES or set(data) - {"__t"} - set(_FIELDS[name]):
        raise Malformed(f"unexpected value {str(name)[:40]!r} or fields")
    kwargs = {}
    for key, hint in _FIELDS[name].items():
        if key not in data:
            continue
        value = decode(data[key])
        if get_origin(hint) is tuple and isinstance(value, list):
            value = tuple(value)
        if not conforms(value, hint):
            raise Malformed(f"{name}.{key} must be {type_text(hint)}")
        kwargs[key] = value
    try:
        built = WIRE_TYPES[name](**kwargs)
    except TypeError as exc:
        raise Malformed(f"{name}: {exc}") from None
    if name == "Ending" and built.reason in KERNEL_ENDINGS:
        raise Malformed(f"{name}: unexpected reason")
    return built


def conforms(value: Any, hint: Any) -> bool:
    """Whether ``value`` has the type ``hint`` names: the contracts' type expressions (classes, unions,
    ``Literal``, ``list[X]``, ``tuple[X, ...]``, ``dict[str, X]``). Contract values must be of their
    exact class; a bool is never a number; an int is a float."""
    origin, args = get_origin(hint), get_args(hint)
    if hint is None or hint is type(None):
        return value is None
    if origin in (Union, types.UnionType):
        return any(conforms(value, a) for a in args)
    if origin is Literal:
        return type(value) in (str, int) and value in args
    if origin is list:
        return isinstance(value, list) and all(conforms(v, args[0]) for v in value)
    if origin is tuple:
        if args[1:] == (...,):
            return isinstance(value, tuple) and all(conforms(v, args[0]) for v in value)
        return isinstance(value, tuple) and len(value) == len(args) and all(map(conforms, value, args))
    if origin is dict:
        return isinstance(value, dict) and all(type(k) is str and conforms(v, args[1]) for k, v in value.items())
    if hint is Any:
        return True
    if hint is float:
        return isinstance(value, int | float) and not isinstance(value, bool)
    if hint is int:
        return isinstance(value, int) and not isinstance(value, bool)
    if is_dataclass(hint):
        return type(value) is hint
    return isinstance(value, hint)


def expect(value: Any, hint: Any, what: str) -> Any:
    """``value`` if it has type ``hint`` (see :func:`conforms`), else :class:`Malformed`."""
    if not conforms(value, hint):
        raise Malformed(f"{what}: expected {type_text(hint)}, got {type(value).__name__}")
    return value


def frame(message: dict) -> bytes:
    data = json.dumps(message, separators=(",", ":")).encode()
    return HEADER.pack(len(data)) + data


def unframe(data: bytes) -> dict:
    try:
        message = json.loads(data)
    except (ValueError, RecursionError) as exc:
        raise Malformed(f"not JSON: {exc}") from None
    if not isinstance(message, dict):
        raise Malformed("a message must be a JSON object")
    return message


class Mirror:
    """One side's copy of the loop state and history, synchronised by deltas (see module doc).

    ``owner`` is True on the orchestrator's side: only it sends turns and history; scalars and notes
    go both ways (functions may count compactions or keep notes, as they always could)."""

    def __init__(self, state: LoopState, history: list[Message], owner: bool):
        self.state, self.history, self.owner = state, history, owner
        self._scalars: dict[str, int | bool | None] = {}
        self._notes = "{}"
        self._turns = 0
        self._sent_history: tuple[list[Message], int, Message | None] = (history, 0, None)

    def delta(self) -> dict:
        out: dict[str, object] = {}
        scalars = {k: getattr(self.state, k) for k in SCALARS}
        changed = {k: v for k, v in scalars.items() if self._scalars.get(k, _UNSET) != v}
        if changed:
            out["v"], self._scalars = changed, scalars
        notes = json.dumps(encode(self.state.notes), sort_keys=True)
        if notes != self._notes:
            out["n"], self._notes = json.loads(notes), notes
        if self.owner:
            self._turn_delta(out)
            self._history_delta(out)
        return out

    def reset_notes(self) -> None:
        """Back to the notes last sent or received (after notes that cannot be sent)."""
        self.state.notes = decode(json.loads(self._notes))

    def _turn_delta(self, out: dict) -> None:
        turns = self.state.turns
        if len(turns) != self._turns:
            start = self._turns if len(turns) > self._turns else 0
            out["t"] = [start, encode(turns[start:])]
            self._turns = len(turns)

    def _history_delta(self, out: dict) -> None:
        listed, count, last = self._sent_history
        history = self.history
        if history is listed and len(history) == count and (not count or history[-1] is last):
            return
        appended = history is listed and len(history) > count and (not count or history[count - 1] is last)
        start = count if appended else 0
        out["h"] = [start, encode(history[start:])]
        self._sent_history = (history, len(history), history[-1] if history else None)

    def apply(self, delta: dict | None) -> None:
        if not delta:
            return
        for key, value in (delta.get("v") or {}).items():
            if key in SCALARS and conforms(value, SCALARS[key]):
                setattr(self.state, key, value)
                self._scalars[key] = value
        if "n" in delta:
            self.state.notes = expect(decode(delta["n"]), dict, "notes")
            self._notes = json.dumps(delta["n"], sort_keys=True)
        if not self.owner:
            self._apply_owned(delta)

    def _apply_owned(self, delta: dict) -> None:
        if "t" in delta:
            start, turns = delta["t"]
            self.state.turns[start:] = decode(turns)
        if "h" in delta:
            start, messages = delta["h"]
            self.history[start:] = decode(messages)


_UNSET = object()
