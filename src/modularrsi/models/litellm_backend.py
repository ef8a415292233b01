"""A :class:`~modularrsi.models.base.ChatModel` for any provider LiteLLM supports (``litellm.acompletion``).

Invariants:

- Only :meth:`Message.wire` dicts are sent: purpose tags never leave the process.
- LiteLLM and the OpenAI SDK are told not to retry (``num_retries=0``, ``max_retries=0``); the retry loop
  here is the only one. It retries rate limits, 5xx, timeouts, connection errors and malformed bodies,
  at most ``max_retries`` times, sleeping ``backoff_s * 2**n`` plus a little jitter (capped at
  :attr:`LiteLLMModel.MAX_BACKOFF_S`), or the server's ``Retry-After`` when it sends one (capped at
  :attr:`LiteLLMModel.MAX_RETRY_AFTER_S`).
- Context-length errors are never retried: they raise :class:`ContextOverflow` at once. Other client
  errors (bad request, authentication, not found) raise :class:`ModelUnavailable` at once.
- Every error raised here is one line, names the model, and has the API key redacted; the key is read
  from the environment at call time and never stored on the instance, so ``repr`` cannot show it.
- A structured call (:func:`modularrsi.models.structured.response_schema`) sends the schema as a JSON-schema
  ``response_format`` unless ``structured_output`` is False; an endpoint that refuses it (a 400 naming
  ``response_format`` or ``json_schema``) is asked again without it, and never again with it: the caller's
  repair-and-retry path then carries the structure.
- Accounting: every completion carries its tokens, latency and ``finish_reason`` (``"length"``: cut off at
  ``max_output_tokens``); :attr:`LiteLLMModel.stats` keeps running totals per instance (one per role).
- ``litellm`` is imported on first use, not at import time; the first use applies the offline defaults
  (:func:`modularrsi.util.outbound.apply_offline_defaults`, which never overrides a variable already set).
"""

from __future__ import annotations

import asyncio
import logging
import os
import random
import time
from dataclasses import dataclass, field
from typing import Any

from modularrsi.models.base import (
    Completion,
    ContextOverflow,
    Message,
    ModelUnavailable,
    OutputTruncated,
    Usage,
)
from modularrsi.models.settings import ModelSettings
from modularrsi.models.structured import RESPONSE_SCHEMA, TEMPERATURE, json_schema_format
from modularrsi.util.jsontypes import WireBody

log = logging.getLogger(__name__)

#: Context size assumed for models LiteLLM does not know and no explicit ``context_limit`` was given.
DEFAULT_CONTEXT_LIMIT = 32768

_CONTEXT_MARKERS = ("maximum context length", "context_length_exceeded", "context window")
_RETRYABLE_CLIENT_STATUSES = (408, 409, 425, 429)
_SCHEMA_MARKERS = ("response_format", "json_schema", "response format", "json schema")


def litellm_module() -> Any:
    """Import LiteLLM (offline defaults first, debug banners off); cached by Python's module system."""
    from modularrsi.util.outbound import apply_offline_defaults

    apply_offline_defaults()
    import litellm

    litellm.suppress_debug_info = True
    return litellm


def known_limits(name: str) -> tuple[int | None, int | None]:
    """``(context window, output limit)`` LiteLLM knows for model ``name`` (``max_input_tokens``, else
    ``max_tokens``; ``max_output_tokens``), each None when unknown."""
    try:
        info = litellm_module().get_model_info(name)
    except Exception:  # noqa: BLE001 - LiteLLM raises for models it does not know
        return None, None
    context = info.get("max_input_tokens") or info.get("max_tokens")
    output = info.get("max_output_tokens")
    return (int(context) if context else None), (int(output) if output else None)


def one_line(text: str, secret: str | None = None, limit: int = 300) -> str:
    """``text`` on one line, at most ``limit`` characters, with ``secret`` replaced by ``***``."""
    if secret:
        text = text.replace(secret, "***")
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def is_context_error(exc: BaseException) -> bool:
    """True for LiteLLM's context-window error, or a 400 whose message says the context is too long."""
    if isinstance(exc, litellm_module().ContextWindowExceededError):
        return True
    return getattr(exc, "status_code", None) == 400 and any(m in str(exc).lower() for m in _CONTEXT_MARKERS)


def is_retryable(exc: BaseException) -> bool:
    """False for client errors (4xx other than 408/409/425/429); True for everything else.

    Rate limits, 5xx, timeouts, connection errors and malformed bodies (which LiteLLM reports as
    500s, or which fail our own parsing) are therefore retried.
    """
    status = getattr(exc, "status_code", None)
    if isinstance(exc, TimeoutError) or not isinstance(status, int):
        return True
    return not (400 <= status < 500) or status in _RETRYABLE_CLIENT_STATUSES


def retry_after(exc: BaseException) -> float | None:
    """Seconds the server asked us to wait (``Retry-After`` in seconds), or ``None``."""
    for headers in (getattr(getattr(exc, "response", None), "headers", None),
                    getattr(exc, "litellm_response_headers", None)):
        value = headers.get("retry-after") if headers is not None else None
        if value is None:
            continue
        try:
            return max(0.0, float(value))
        except ValueError:
            return None  # an HTTP date; fall back to our own backoff
    return None


class MalformedReply(ValueError):
    """A 200 response without a usable chat completion in it."""


@dataclass
class CallStats:
    """Running totals of one model instance: ``usage`` (calls, tokens, latency, cost; ``by_purpose`` counts
    ``structured`` and ``plain`` calls), failed attempts, replies cut off at the token limit, and whether
    the endpoint refused a JSON-schema ``response_format``."""

    usage: Usage = field(default_factory=Usage)
    failed_attempts: int = 0
    cut_off: int = 0
    schema_refused: bool = False

    def add(self, completion: Completion, structured: bool) -> None:
        self.usage.add(completion, "structured" if structured else "plain")


class LiteLLMModel:
    """A chat model served through LiteLLM, called as its :class:`~modularrsi.models.settings.ModelSettings`
    say: ``LiteLLMModel(ModelSettings(model="openai/gpt-4o-mini"))``, or any OpenAI-compatible endpoint with
    ``api_base``. ``backoff_s``: the first wait between retries; ``context_fallback``: the context window of
    a model LiteLLM does not know and the settings do not size."""

    MAX_BACKOFF_S = 30.0
    MAX_RETRY_AFTER_S = 60.0
    JITTER = 0.1  # fraction of the backoff added at random

    def __init__(self, settings: ModelSettings, *, backoff_s: float = 1.0,
                 context_fallback: int = DEFAULT_CONTEXT_LIMIT) -> None:
        if backoff_s < 0:
            raise ValueError("need backoff_s >= 0")
        self.settings = settings
        self.name = settings.model
        self.backoff_s = backoff_s
        self.stats = CallStats()
        self._context_fallback = context_fallback
        self._context_limit = settings.context_limit
        self._unpriced = False

    def __repr__(self) -> str:
        s = self.settings
        return (f"LiteLLMModel(name={self.name!r}, api_base={s.api_base!r}, api_key_env={s.api_key_env!r}, "
                f"timeout_s={s.timeout_s}, max_retries={s.max_retries}, extra_keys={sorted(s.extra)})")

    # -- the ChatModel interface -------------------------------------------------------------------

    async def complete(self, messages: list[Message]) -> Completion:
        """One chat completion, retried as described in the module docstring."""
        wire = [m.wire() for m in messages]
        key = self._api_key()
        attempts = self.settings.max_retries + 1
        last: BaseException | None = None
        for attempt in range(1, attempts + 1):
            try:
                return await self._attempt(wire, key)
            except Exception as exc:  # classified below, never swallowed silently (cancellation passes through)
                self.stats.failed_attempts += 1
                last = self._check(exc, key)
            if attempt < attempts:
                delay = self._delay(attempt, last)
                log.warning("%s: attempt %d/%d failed (%s); retrying in %.2fs",
                            self.name, attempt, attempts, type(last).__name__, delay)
                await asyncio.sleep(delay)
        detail = one_line(str(last), key, 200)
        raise ModelUnavailable(f"{self.name}: gave up after {attempts} attempts; "
                               f"last error {type(last).__name__}: {detail}") from None

    def context_limit(self) -> int:
        """The explicit limit, else what LiteLLM knows of the model (:func:`known_limits`), else the fallback."""
        if self._context_limit is None:
            self._context_limit = known_limits(self.name)[0] or self._context_fallback
        return self._context_limit

    def count_tokens(self, messages: list[Message]) -> int:
        """LiteLLM's tokenizer for the model; ``len(text) // 4`` if it fails."""
        wire = [m.wire() for m in messages]
        try:
            return int(litellm_module().token_counter(model=self.name, messages=wire))
        except Exception:  # any tokenizer trouble falls back to the rough count
            return sum(len(m["content"]) for m in wire) // 4

    # -- one attempt -------------------------------------------------------------------------------

    async def _attempt(self, wire: list[dict[str, str]], key: str | None) -> Completion:
        """Send once. LiteLLM enforces ``timeout_s``; an asyncio guard a little later backstops a hung call."""
        acompletion = litellm_module().acompletion  # the first import takes seconds: keep it out of the timed call
        started = time.monotonic()
        request = self._request(wire, key)
        async with asyncio.timeout(self.settings.timeout_s * 1.25 + 1.0):
            response = await acompletion(**request)
        completion = self._completion(response, wire, time.monotonic() - started)
        self.stats.add(completion, "response_format" in request)
        return completion

    def _request(self, wire: list[dict[str, str]], key: str | None) -> WireBody:
        s = self.settings
        request: WireBody = dict(s.extra)
        request.update(model=self.name, messages=wire, timeout=s.timeout_s, num_retries=0, max_retries=0)
        if s.api_base is not None:
            request["api_base"] = s.api_base
        if key is not None:
            request["api_key"] = key
        if (hotter := TEMPERATURE.get()) is not None or s.temperature is not None:
            request["temperature"] = hotter if hotter is not None else s.temperature
        if s.max_output_tokens is not None:
            request["max_tokens"] = s.max_output_tokens
        spec = RESPONSE_SCHEMA.get()
        if spec is not None and s.structured_output and not self.stats.schema_refused:
            request["response_format"] = json_schema_format(spec)
        return request

    def _completion(self, response: Any, wire: list[dict[str, str]], latency_s: float) -> Completion:
        content = _content(response)
        if _finish_reason(response) == "length":
            raise OutputTruncated(f"{self.name}: the reply was cut off at the output limit", content)
        usage = getattr(response, "usage", None)
        input_tokens = int(getattr(usage, "prompt_tokens", 0) or 0) or self._count(messages=wire)
        output_tokens = int(getattr(usage, "completion_tokens", 0) or 0) or self._count(text=content)
        return Completion(content=content, input_tokens=input_tokens, output_tokens=output_tokens,
                          cost_usd=self._cost(response), model=self.name, latency_s=latency_s,
                          served_model=str(getattr(response, "model", None) or ""),
                          finish_reason=_finish_reason(response) or "", cached_tokens=_cached_tokens(usage),
                          reasoning_content=_reasoning(response))

    def _count(self, **what: Any) -> int:
        try:
            return int(litellm_module().token_counter(model=self.name, **what))
        except Exception:
            text = what.get("text") or "".join(m["content"] for m in what.get("messages", []))
            return len(text) // 4

    def _cost(self, response: Any) -> float:
        """LiteLLM's price for ``response``; 0.0 for models the local cost map does not know.

        LiteLLM already prices a response while logging it (``_hidden_params['response_cost']``); that
        value is used when present. A model LiteLLM cannot price is entered in its cost map at 0.0 the
        first time (what this method answers for it anyway): otherwise LiteLLM searches its map for a
        price again on every call, milliseconds of CPU each."""
        hidden = getattr(response, "_hidden_params", None) or {}
        if hidden.get("response_cost") is not None:
            return float(hidden["response_cost"])
        if self._unpriced:
            return 0.0
        litellm = litellm_module()
        try:
            return float(litellm.completion_cost(completion_response=response, model=self.name) or 0.0)
        except Exception:  # unknown models are free as far as we can tell
            self._unpriced = True
            provider = self.name.split("/", 1)[0] if "/" in self.name else "openai"
            litellm.register_model({self.name: {
                "input_cost_per_token": 0.0, "output_cost_per_token": 0.0, "cache_creation_input_token_cost": 0.0,
                "cache_read_input_token_cost": 0.0, "litellm_provider": provider, "mode": "chat"}})
            return 0.0

    # -- failures ----------------------------------------------------------------------------------

    def _api_key(self) -> str | None:
        """The key from ``api_key_env`` (``None``: LiteLLM's provider variables apply)."""
        variable = self.settings.api_key_env
        if variable is None:
            return None
        key = os.environ.get(variable)
        if not key:
            raise ModelUnavailable(f"{self.name}: environment variable {variable} is not set")
        return key

    def _check(self, exc: Exception, key: str | None) -> Exception:
        """Raise at once for errors retrying cannot fix; otherwise return ``exc`` for the retry loop."""
        if isinstance(exc, OutputTruncated):
            self.stats.cut_off += 1
            raise exc
        if is_context_error(exc):
            raise ContextOverflow(f"{self.name}: {one_line(str(exc), key)}") from None
        if self._schema_refusal(exc):
            log.warning("%s: the endpoint refuses JSON-schema response_format; continuing without it", self.name)
            self.stats.schema_refused = True
            return exc
        if not is_retryable(exc):
            raise ModelUnavailable(f"{self.name}: {type(exc).__name__} (not retried): "
                                   f"{one_line(str(exc), key, 200)}") from None
        return exc

    def _schema_refusal(self, exc: Exception) -> bool:
        """A 400 about ``response_format`` while one was being sent (the retry goes without it)."""
        sent = RESPONSE_SCHEMA.get() is not None and self.settings.structured_output and not self.stats.schema_refused
        text = str(exc).lower()
        return sent and getattr(exc, "status_code", None) == 400 and any(m in text for m in _SCHEMA_MARKERS)

    def _delay(self, attempt: int, exc: BaseException) -> float:
        """Seconds to wait before attempt ``attempt + 1``: Retry-After if sent, else jittered exponential backoff."""
        asked = retry_after(exc)
        if asked is not None:
            return min(asked, self.MAX_RETRY_AFTER_S)
        base = self.backoff_s * 2 ** (attempt - 1)
        return min(base + random.uniform(0, self.JITTER * base), self.MAX_BACKOFF_S)


def _cached_tokens(usage: Any) -> int:
    """``usage.prompt_tokens_details.cached_tokens`` (0 when the server reports none), as Harbor reads it."""
    details = getattr(usage, "prompt_tokens_details", None)
    return int(getattr(details, "cached_tokens", 0) or 0) if details is not None else 0


def _reasoning(response: Any) -> str | None:
    """The first choice's ``reasoning_content`` (a served field, or a ``<think>`` block LiteLLM moved there)."""
    try:
        return getattr(response.choices[0].message, "reasoning_content", None) or None
    except (AttributeError, IndexError):
        return None


def _finish_reason(response: Any) -> str | None:
    try:
        return getattr(response.choices[0], "finish_reason", None)
    except (AttributeError, IndexError, KeyError, TypeError):
        return None


def _content(response: Any) -> str:
    """The assistant text of a chat response; :class:`MalformedReply` when there is none."""
    try:
        message = response.choices[0].message
    except (AttributeError, IndexError, KeyError, TypeError) as exc:
        raise MalformedReply(f"response without choices: {type(response).__name__}") from exc
    content = getattr(message, "content", None)
    return content if isinstance(content, str) else ""
