"""The budget ledger: one place that owns a run's token and cost caps.

Every metered call is checked before it is made and charged after it returns; once a cap is reached
no further call is made (:class:`BudgetExceeded`), the attempt ends cleanly and the run stops
launching attempts. The ledger persists to a JSON file in the run directory (atomically), so a
resumed run keeps counting from where it stopped. Cache hits are free.

Persisting never blocks the caller (an event loop charging hundreds of calls a minute): a writer
thread coalesces charges and writes at most every :data:`FLUSH_S` seconds, and once more at exit
(:meth:`BudgetLedger.flush`). A process killed outright loses at most the last ``FLUSH_S`` seconds
of spending from the file; the caps themselves are checked in memory, never from the file.
"""

from __future__ import annotations

import atexit
import threading
import time
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from modularrsi.models.base import BudgetExceeded, ChatModel, Completion, Message
from modularrsi.util.errors import UserError
from modularrsi.util.files import write_json

FLUSH_S = 0.5


class Spend(BaseModel):
    """What the metered calls of a run have used so far (cache hits are free)."""

    calls: int = 0
    tokens: int = 0
    cost_usd: float = 0.0


class BudgetFile(BaseModel):
    """``budget.json``: the caps (None = no cap) and what has been spent; written by the ledger, read
    back by it on resume and by the report."""

    model_config = ConfigDict(extra="ignore")

    max_tokens: int | None = None
    max_cost_usd: float | None = None
    spent: Spend = Field(default_factory=Spend)

    @classmethod
    def read(cls, path: Path) -> BudgetFile:
        """The ledger file at ``path``; ValueError naming the file and the field when it does not fit."""
        try:
            return cls.model_validate_json(path.read_bytes())
        except ValidationError as exc:
            error = exc.errors()[0]
            raise UserError(f"{path}: {'.'.join(map(str, error['loc'])) or 'file'}: {error['msg']} (delete the "
                            "file to start counting from zero)") from None


class BudgetLedger:
    """Caps (None = no cap) and what has been spent; shared by every model of a run in this process."""

    _open: dict[Path, BudgetLedger] = {}
    _guard = threading.Lock()

    def __init__(self, path: Path | None, max_tokens: int | None = None, max_cost_usd: float | None = None):
        self.path, self.max_tokens, self.max_cost_usd = path, max_tokens, max_cost_usd
        self.spent = Spend()
        if path is not None and path.is_file():
            self.spent = BudgetFile.read(path).spent
        self._lock = threading.Lock()
        self._dirty = threading.Event()
        self._write_lock = threading.Lock()
        self._writer: threading.Thread | None = None

    @classmethod
    def shared(cls, path: Path, max_tokens: int | None = None, max_cost_usd: float | None = None) -> BudgetLedger:
        """The one ledger of ``path`` in this process (caps updated to the latest given)."""
        with cls._guard:
            ledger = cls._open.get(path.resolve())
            if ledger is None:
                ledger = cls._open[path.resolve()] = cls(path, max_tokens, max_cost_usd)
            ledger.max_tokens, ledger.max_cost_usd = max_tokens, max_cost_usd
            return ledger

    def exhausted(self) -> str | None:
        """Why no further call may be made, or None."""
        if self.max_tokens is not None and self.spent.tokens >= self.max_tokens:
            return f"token cap reached: {self.spent.tokens:,} of {self.max_tokens:,} tokens used"
        if self.max_cost_usd is not None and self.spent.cost_usd >= self.max_cost_usd:
            return f"cost cap reached: ${self.spent.cost_usd:.4f} of ${self.max_cost_usd:.4f} spent"
        return None

    def check(self) -> None:
        reason = self.exhausted()
        if reason:
            raise BudgetExceeded(reason)

    def charge(self, completion: Completion) -> None:
        with self._lock:
            self.spent.calls += 1
            self.spent.tokens += completion.input_tokens + completion.output_tokens
            self.spent.cost_usd += completion.cost_usd
            if self.path is not None and self._writer is None:
                self._writer = threading.Thread(target=self._write_behind, name="budget-ledger", daemon=True)
                self._writer.start()
                atexit.register(self.flush)
        self._dirty.set()

    def flush(self) -> None:
        """Write what has been spent to the ledger file now (a no-op when nothing changed)."""
        with self._write_lock:  # writes in order; charges never wait on one
            with self._lock:
                if self.path is None or not self._dirty.is_set():
                    return
                self._dirty.clear()
                state = BudgetFile(max_tokens=self.max_tokens, max_cost_usd=self.max_cost_usd,
                                   spent=self.spent.model_copy())
            write_json(self.path, state.model_dump(mode="json"))

    def _write_behind(self) -> None:
        while True:
            self._dirty.wait()
            time.sleep(FLUSH_S)  # coalesce the charges of the next moment into one write
            self.flush()


class MeteredModel:
    """Wraps a ChatModel so every call goes through the ledger."""

    def __init__(self, inner: ChatModel, ledger: BudgetLedger):
        self.inner, self.ledger = inner, ledger
        self.name = inner.name

    async def complete(self, messages: list[Message]) -> Completion:
        self.ledger.check()
        completion = await self.inner.complete(messages)
        if not completion.cached:
            self.ledger.charge(completion)
        return completion

    def context_limit(self) -> int:
        return self.inner.context_limit()

    def count_tokens(self, messages: list[Message]) -> int:
        return self.inner.count_tokens(messages)
