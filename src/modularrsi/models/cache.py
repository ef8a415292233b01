"""An on-disk response cache keyed by the canonical request, so a resumed run does not pay twice.

The key is the SHA-256 of the model name, the wire messages (no purpose tags), the settings that change the
answer, the JSON schema a structured call asks for and the temperature a call is made at instead of the
role's (when either is in force) and the *attempt* asking (task,
attempt index, seed): the K attempts of a task are K samples of a stochastic model, so they must not collapse
into one answer because their first prompts are byte-identical (a deterministic environment makes them so). A
resumed attempt asks with the same scope and so is answered from the cache. Values are the completion's
content and token counts. SQLite in WAL mode: safe for many concurrent attempts in one process and across
processes. Never stores API keys: only what ``Message.wire`` sends, the settings and the scope given here.

*Replay* (common random numbers): a :class:`CachedModel` may also read the paired side's cache (the
other generation's run on the same seed), opened read-only. While every request of the attempt so far
was one the paired side made too, a request missing from the own cache is answered from the replay
(and copied into the own cache, so a resumed attempt answers the same); from the first request the
paired side did not make, the model is called. A replayed reply was drawn for the identical request of
the same attempt, so each side's trajectory is distributed as without replay (docs/evolve.md).
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import threading
from dataclasses import replace
from pathlib import Path

from modularrsi.models.base import ChatModel, Completion, Message
from modularrsi.models.structured import RESPONSE_SCHEMA, TEMPERATURE


def request_key(model: str, messages: list[Message], settings: dict | None = None, scope: dict | None = None) -> str:
    """The cache key; ``scope`` names the attempt asking (``{"task", "attempt", "seed"}``). A reply asked for
    under a JSON schema is another request than the same messages asked for as free text."""
    request = {"model": model, "messages": [m.wire() for m in messages], "settings": settings or {},
               "scope": scope or {}}
    schema = RESPONSE_SCHEMA.get()
    if schema is not None:
        request["response_schema"] = schema
    if (hotter := TEMPERATURE.get()) is not None:
        request["temperature"] = hotter
    canonical = json.dumps(request, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(canonical.encode()).hexdigest()


#: The cache's one table (``modularrsi.evolve.eval_share`` merges caches row by row).
SCHEMA = ("CREATE TABLE IF NOT EXISTS responses (key TEXT PRIMARY KEY, model TEXT, content TEXT, input_tokens INT, "
          "output_tokens INT, cost_usd REAL)")


class ResponseCache:
    """A key → completion store in one SQLite file. ``read_only``: opened with SQLite's ``mode=ro``, never
    written (``put`` refuses); a file that does not exist (yet) reads as empty."""

    def __init__(self, path: Path, *, read_only: bool = False):
        self.path, self.read_only = path, read_only
        self._lock = threading.Lock()
        self._db: sqlite3.Connection | None = None
        if not read_only:
            path.parent.mkdir(parents=True, exist_ok=True)
            self._db = sqlite3.connect(path, check_same_thread=False, isolation_level=None)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute(SCHEMA)

    def _connection(self) -> sqlite3.Connection | None:
        """The open database; a read-only cache connects once its file exists (call under the lock)."""
        if self._db is None and self.read_only and self.path.is_file():
            self._db = sqlite3.connect(f"{self.path.resolve().as_uri()}?mode=ro", uri=True, check_same_thread=False)
        return self._db

    def get(self, key: str) -> Completion | None:
        with self._lock:
            db = self._connection()
            row = None if db is None else db.execute(
                "SELECT model, content, input_tokens, output_tokens, cost_usd FROM responses WHERE key = ?",
                (key,)).fetchone()
        if row is None:
            return None
        return Completion(row[1], row[2], row[3], row[4], row[0], cached=True)

    def put(self, key: str, completion: Completion) -> None:
        if self._db is None or self.read_only:
            raise ValueError(f"response cache {self.path} is read-only (a replay): it is never written")
        with self._lock:
            self._db.execute("INSERT OR REPLACE INTO responses VALUES (?, ?, ?, ?, ?, ?)",
                             (key, completion.model, completion.content, completion.input_tokens,
                              completion.output_tokens, completion.cost_usd))

    def __len__(self) -> int:
        with self._lock:
            db = self._connection()
            return 0 if db is None else db.execute("SELECT COUNT(*) FROM responses").fetchone()[0]

    def close(self) -> None:
        if self._db is not None:
            self._db.close()


class CachedModel:
    """Wraps a ChatModel: answers the requests of an attempt (``scope``) that a resumed run asks again from
    the cache, and with ``replay`` (the paired side's cache, read-only) the requests of the attempt's common
    prefix with the paired side (see the module docstring); a hit costs nothing. One instance serves one
    attempt. A request the attempt has already had answered and now asks again (a harness that re-sends its
    prompt after a bad reply) is another draw of the model, not the first answer again: the n-th asking of
    the same request has its own key (the first keeps the plain key), so a resume and a replay meet the
    n-th answer at the n-th asking."""

    def __init__(self, inner: ChatModel, cache: ResponseCache, settings: dict | None = None,
                 scope: dict | None = None, replay: ResponseCache | None = None):
        self.inner, self.cache, self.settings, self.scope = inner, cache, settings or {}, scope or {}
        self.replay, self._replaying = replay, replay is not None
        self.name = inner.name
        self._answered: dict[str, int] = {}  # plain key -> how often this attempt has had it answered

    async def complete(self, messages: list[Message]) -> Completion:
        plain = request_key(self.name, messages, self.settings, self.scope)
        asked = self._answered.get(plain, 0)
        key = plain if not asked else request_key(self.name, messages, self.settings, {**self.scope, "asked": asked})
        hit = self.cache.get(key)
        replayed = self._replayed(key)
        if hit is None and replayed is not None:
            hit = replayed
            self.cache.put(key, hit)
        if hit is None:
            hit = await self.inner.complete(messages)  # a failed call raises here and counts no asking
            self.cache.put(key, hit)
        else:
            hit = replace(hit, cost_usd=0.0)
        self._answered[plain] = asked + 1
        return hit

    def _replayed(self, key: str) -> Completion | None:
        """The paired side's reply to this request while the attempt is still on their common prefix; the
        first request the paired side did not make ends the prefix for good."""
        if not self._replaying or self.replay is None:
            return None
        reply = self.replay.get(key)
        self._replaying = reply is not None
        return reply

    def context_limit(self) -> int:
        return self.inner.context_limit()

    def count_tokens(self, messages: list[Message]) -> int:
        return self.inner.count_tokens(messages)
