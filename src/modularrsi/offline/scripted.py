"""A scripted model: answers from a fixed list and fails loudly on an unexpected call (a test double)."""

from __future__ import annotations

import json
from pathlib import Path

from modularrsi.models.base import Completion, Message, UnexpectedCall
from modularrsi.util.errors import UserError


class ScriptedModel:
    """Returns ``replies`` in order; raises :class:`UnexpectedCall` when asked once more.

    ``calls`` keeps every conversation it was given, for assertions."""

    def __init__(self, replies: list[str], name: str = "scripted", context_tokens: int = 128_000):
        self.name = name
        self._replies = list(replies)
        self._context_tokens = context_tokens
        self.calls: list[list[Message]] = []

    @classmethod
    def from_file(cls, path: Path) -> ScriptedModel:
        data = json.loads(Path(path).read_text())
        if not isinstance(data, list) or not all(isinstance(r, str) for r in data):
            raise UserError(f"{path}: a scripted model file is a JSON list of reply strings")
        return cls(data, name=f"scripted:{Path(path).name}")

    async def complete(self, messages: list[Message]) -> Completion:
        self.calls.append(list(messages))
        if len(self.calls) > len(self._replies):
            raise UnexpectedCall(f"{self.name}: call {len(self.calls)} but only {len(self._replies)} replies scripted")
        reply = self._replies[len(self.calls) - 1]
        return Completion(reply, self.count_tokens(messages), max(1, len(reply) // 4), 0.0, self.name)

    def context_limit(self) -> int:
        return self._context_tokens

    def count_tokens(self, messages: list[Message]) -> int:
        return sum(len(m.content) for m in messages) // 4 + 4 * len(messages)
