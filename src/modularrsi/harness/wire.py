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
from dataclasses import fields
from typing import Any

from modularrsi.harness.protocols import Action, Ending, LoopState, Message, Reply, TurnRecord, Verdict

HEADER = struct.Struct(">I")
MAX_MESSAGE = 64 << 20
_STR, _NUM, _BOOL, _INT, _OPT = (str,), (int, float), (bool,), (int,), (str, type(None))
#: Each value type and its fields' allowed types ("Action*": a sequence of Action).
SCHEMAS: dict[str, tuple[type, dict[str, Any]]] = {
    "Action": (Action, {"keystrokes": _STR, "duration": _NUM}),
    "Reply": (Reply, {"raw": _STR, "analysis": _STR, "plan": _STR, "actions": "Action*",
                      "task_complete": _BOOL, "error": _OPT, "warning": _OPT}),
    "Verdict": (Verdict, {"done": _BOOL, "message": _OPT, "purpose": _STR}),
    "Ending": (Ending, {"reason": _STR, "turns": _INT, "detail": _STR}),
    "Message": (Message, {"role": _STR, "content": _STR, "purpose": _STR}),
    "TurnRecord": (TurnRecord, {"index": _INT, "prompt_purpose": _STR, "reply": "Reply", "output": _STR,
                                "observation": _STR}),
}
ROLES = ("system", "user", "assistant")
ENDINGS = ("completed", "turn_limit", "time_limit", "session_ended", "model_error", "budget")
SCALARS = ("turn", "max_turns", "pending_completion", "completion_claims", "parse_errors", "compactions")


class Malformed(ValueError):
    """A value that may not cross the boundary, or arrived in a shape it may not have."""


def encode(value: Any, refs: Refs | None = None) -> Any:
    """``value`` as JSON-ready data; :class:`Malformed` for anything outside the contract. A message
    of the mirrored history (``refs``) travels as its index ``{"__h": i}``."""
    if value is None or isinstance(value, bool | int | float | str):
        return value
    if refs is not None and type(value) is Message and (index := refs.index(value)) is not None:
        return {"__h": index}
    schema = SCHEMAS.get(type(value).__name__)
    if schema is not None and type(value) is schema[0]:
        return {"__t": type(value).__name__, **{f.name: encode(getattr(value, f.name)) for f in fields(value)}}
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
    if name not in SCHEMAS or set(data) - {"__t"} - set(SCHEMAS[name][1]):
        raise Malformed(f"unexpected value {str(name)[:40]!r} or fields")
    cls, spec = SCHEMAS[name]
    kwargs = {}
    for key, kinds in spec.items():
        if key not in data:
            continue
        value = decode(data[key])
        if kinds == "Action*":
            if not isinstance(value, list) or not all(type(a) is Action for a in value):
                raise Malformed(f"{name}.{key} must be a list of Action")
            value = tuple(value)
        elif isinstance(kinds, str):
            if type(value) is not SCHEMAS[kinds][0]:
                raise Malformed(f"{name}.{key} must be a {kinds}")
        elif not isinstance(value, kinds) or (kinds != _BOOL and isinstance(value, bool)):
            raise Malformed(f"{name}.{key} must be {' or '.join(k.__name__ for k in kinds)}")
        kwargs[key] = value
    try:
        built = cls(**kwargs)
    except TypeError as exc:
        raise Malformed(f"{name}: {exc}") from None
    if (name == "Message" and built.role not in ROLES) or (name == "Ending" and built.reason not in ENDINGS):
        raise Malformed(f"{name}: unexpected role or reason")
    return built


def expect(value: Any, kind: type | tuple[type, ...], what: str) -> Any:
    """``value`` if it is a ``kind`` (bools are not numbers), else :class:`Malformed`."""
    kinds = kind if isinstance(kind, tuple) else (kind,)
    if not isinstance(value, kinds) or (bool not in kinds and isinstance(value, bool)):
        raise Malformed(f"{what}: expected {' or '.join(k.__name__ for k in kinds)}, got {type(value).__name__}")
    return value


def expect_list(value: Any, kind: type, what: str) -> list:
    if not isinstance(value, list):
        raise Malformed(f"{what}: expected a list, got {type(value).__name__}")
    return [expect(v, kind, what) for v in value]


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
        self._scalars: dict[str, Any] = {}
        self._notes = "{}"
        self._turns = 0
        self._sent_history: tuple[list[Message], int, Message | None] = (history, 0, None)

    def delta(self) -> dict:
        out: dict[str, Any] = {}
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
            if key in SCALARS and (value is None or isinstance(value, int)):
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
