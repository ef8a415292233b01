"""An on-disk response cache keyed by the canonical request, so a resumed run does not pay twice.

The key is the SHA-256 of the model name, the wire messages (no purpose tags), the settings that
change the answer and the *attempt* asking (task, attempt index, seed): the K attempts of a task are
K samples of a stochastic model, so they must not collapse into one answer because their first
prompts are byte-identical (a deterministic environment makes them so). A resumed attempt asks with the
same scope and so is answered from the cache. Values are the completion's content and token counts.
SQLite in WAL mode: safe for many concurrent attempts in one process and across processes. Never
stores API keys: only what ``Message.wire`` sends, the settings and the scope given here.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import threading
from dataclasses import replace
from pathlib import Path

from modularrsi.models.base import ChatModel, Completion, Message


def request_key(model: str, messages: list[Message], settings: dict | None = None, scope: dict | None = None) -> str:
    """The cache key; ``scope`` names the attempt asking (``{"task", "attempt", "seed"}``)."""
    canonical = json.dumps({"model": model, "messages": [m.wire() for m in messages], "settings": settings or {},
                            "scope": scope or {}}, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(canonical.encode()).hexdigest()


class ResponseCache:
    """A key → completion store in one SQLite file."""

    def __init__(self, path: Path):
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        self._lock = threading.Lock()
        self._db = sqlite3.connect(path, check_same_thread=False, isolation_level=None)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("CREATE TABLE IF NOT EXISTS responses (key TEXT PRIMARY KEY, model TEXT, "
                         "content TEXT, input_tokens INT, output_tokens INT, cost_usd REAL)")

    def get(self, key: str) -> Completion | None:
        with self._lock:
            row = self._db.execute("SELECT model, content, input_tokens, output_tokens, cost_usd FROM responses "
                                   "WHERE key = ?", (key,)).fetchone()
        if row is None:
            return None
        return Completion(row[1], row[2], row[3], row[4], row[0], cached=True)

    def put(self, key: str, completion: Completion) -> None:
        with self._lock:
            self._db.execute("INSERT OR REPLACE INTO responses VALUES (?, ?, ?, ?, ?, ?)",
                             (key, completion.model, completion.content, completion.input_tokens,
                              completion.output_tokens, completion.cost_usd))

    def __len__(self) -> int:
        with self._lock:
            return self._db.execute("SELECT COUNT(*) FROM responses").fetchone()[0]

    def close(self) -> None:
        self._db.close()


class CachedModel:
    """Wraps a ChatModel: answers repeated requests of the same attempt (``scope``) from the cache; a hit
    costs nothing."""

    def __init__(self, inner: ChatModel, cache: ResponseCache, settings: dict | None = None,
                 scope: dict | None = None):
        self.inner, self.cache, self.settings, self.scope = inner, cache, settings or {}, scope or {}
        self.name = inner.name

    async def complete(self, messages: list[Message]) -> Completion:
        key = request_key(self.name, messages, self.settings, self.scope)
        hit = self.cache.get(key)
        if hit is not None:
            return replace(hit, cost_usd=0.0)
        completion = await self.inner.complete(messages)
        self.cache.put(key, completion)
        return completion

    def context_limit(self) -> int:
        return self.inner.context_limit()

    def count_tokens(self, messages: list[Message]) -> int:
        return self.inner.count_tokens(messages)
