"""The one interface every model backend implements, and the values it exchanges.

A model receives a list of :class:`Message` (role, content, and a *purpose* tag saying which
harness mechanism produced the message) and returns a :class:`Completion`. Purpose tags are kept in
trajectories and traces; real backends never send them (:meth:`Message.wire` drops them); the
``sim`` model reads them, as a simulated agent reacting to harness mechanisms.

Failures are typed: :class:`ContextOverflow` (the request does not fit the model's context),
:class:`ModelUnavailable` (retries exhausted: rate limits, 5xx, timeouts, malformed bodies),
:class:`BudgetExceeded` (the run's token or cost cap was reached; the run stops cleanly).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal, Protocol, runtime_checkable

Role = Literal["system", "user", "assistant"]

#: Purposes the kernel uses; functions may add their own (any short snake_case string).
PURPOSES = ("instruction", "observation", "parse_error_feedback", "completion_check", "intervention",
            "summary", "summary_request", "timeout", "reply")


@dataclass(frozen=True)
class Message:
    role: Role
    content: str
    purpose: str = "observation"

    def wire(self) -> dict[str, str]:
        """What is sent to a real model: the purpose tag stays home."""
        return {"role": self.role, "content": self.content}


@dataclass(frozen=True)
class Completion:
    content: str
    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float = 0.0
    model: str = ""
    cached: bool = False
    latency_s: float = 0.0
    served_model: str = ""  # the model name the server's response gave, when it gave one
    finish_reason: str = ""  # the server's, e.g. "stop", or "length" for a reply cut off at the token limit
    cached_tokens: int = 0  # prompt tokens the server reports it served from its prefix cache
    reasoning_content: str | None = None  # the reply's reasoning, where the server (or LiteLLM) split it off


@dataclass
class Usage:
    """Running totals for one model instance (one agent attempt, or one role in a run)."""

    calls: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float = 0.0
    cached_tokens: int = 0
    cache_hits: int = 0
    latency_s: float = 0.0
    by_purpose: dict[str, int] = field(default_factory=dict)

    def add(self, completion: Completion, purpose: str) -> None:
        self.calls += 1
        self.input_tokens += completion.input_tokens
        self.output_tokens += completion.output_tokens
        self.cost_usd += completion.cost_usd
        self.cached_tokens += completion.cached_tokens
        self.cache_hits += int(completion.cached)
        self.latency_s += completion.latency_s
        self.by_purpose[purpose] = self.by_purpose.get(purpose, 0) + 1


class ModelError(RuntimeError):
    """Base of every model failure."""


class ContextOverflow(ModelError):
    """The request exceeds the model's context window."""


class OutputTruncated(ModelError):
    """The reply was cut off at the model's output limit (``finish_reason: "length"``); ``content`` is
    what arrived. Never retried: the harness decides what to tell the model."""

    def __init__(self, message: str, content: str):
        super().__init__(message)
        self.content = content


class ModelUnavailable(ModelError):
    """The backend failed after its retries (rate limit, server error, timeout, malformed body)."""


class BudgetExceeded(ModelError):
    """A token or cost cap of the run was reached; no further calls are made."""


class UnexpectedCall(ModelError):
    """A scripted model was called more times than it has replies for."""


@runtime_checkable
class ChatModel(Protocol):
    """A chat model. Implementations: LiteLLM (any provider), scripted, sim, cached wrappers."""

    name: str

    async def complete(self, messages: list[Message]) -> Completion:
        """Answer the conversation; raise a :class:`ModelError` subclass on failure."""
        ...

    def context_limit(self) -> int:
        """Tokens the model accepts in one request (prompt + reply)."""
        ...

    def count_tokens(self, messages: list[Message]) -> int:
        """Tokens ``messages`` would take in a request."""
        ...
