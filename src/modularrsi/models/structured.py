"""Structured replies from any ChatModel: a JSON schema where the endpoint takes one, repair-and-retry always.

:func:`ask_json` is what the structured roles (analyst, reviewer, composer) call. It asks once with the
role's JSON schema in force (:func:`response_schema`); a backend that supports it
(:class:`~modularrsi.models.litellm_backend.LiteLLMModel`) sends it as ``response_format``, others ignore
it. The reply is handed to the role's own parser; when that parser finds nothing usable — malformed,
empty, cut off at the token limit, wrong types — the reply and one line saying what was wrong go back
to the model, at most ``repairs`` times. The outcome is a :class:`StructuredReply` that always says why
it failed; nothing here raises except :class:`~modularrsi.models.base.BudgetExceeded` (the run must
stop) and the caller's own bugs.

Invariants: the schema travels in a context variable, so wrappers (cache, budget ledger) need not know
about it and a concurrent call of another role never sees it; a failed model call is not repaired (the
backend has already retried it).
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from contextvars import ContextVar
from dataclasses import dataclass, field

from modularrsi.models.base import BudgetExceeded, ChatModel, Completion, Message, ModelError, OutputTruncated
from modularrsi.util.jsontypes import JSONSchema, WireBody

#: ``{"name": str, "schema": dict}`` while a structured call is in flight; None otherwise.
RESPONSE_SCHEMA: ContextVar[JSONSchema | None] = ContextVar("modularrsi_response_schema", default=None)
#: A sampling temperature that replaces the role's own for the calls made inside :func:`temperature` (None: the
#: role's). It is part of the response cache's key, as the schema is.
TEMPERATURE: ContextVar[float | None] = ContextVar("modularrsi_temperature", default=None)


@contextlib.contextmanager
def response_schema(name: str, schema: JSONSchema) -> Iterator[None]:
    """Calls made inside this block ask for JSON matching ``schema`` (where the backend can)."""
    token = RESPONSE_SCHEMA.set({"name": name, "schema": schema})
    try:
        yield
    finally:
        RESPONSE_SCHEMA.reset(token)


@contextlib.contextmanager
def temperature(value: float | None) -> Iterator[None]:
    """Calls made inside this block sample at ``value`` where the backend can (None: the role's temperature) -
    e.g. a retry after the model sent the same answer again."""
    token = TEMPERATURE.set(value)
    try:
        yield
    finally:
        TEMPERATURE.reset(token)


def json_schema_format(spec: JSONSchema) -> WireBody:
    """The OpenAI ``response_format`` value for a :data:`RESPONSE_SCHEMA` entry."""
    return {"type": "json_schema", "json_schema": {"name": spec["name"], "schema": spec["schema"], "strict": True}}


@dataclass
class StructuredReply[T]:
    """What a structured call came to: ``value`` (None on failure), why it failed, and what it cost."""

    value: T | None
    error: str = ""
    calls: int = 0
    repairs: int = 0
    raw: str = ""
    problems: list[str] = field(default_factory=list)
    input_tokens: int = 0
    output_tokens: int = 0
    latency_s: float = 0.0

    @property
    def ok(self) -> bool:
        return self.value is not None

    def count(self, completion: Completion) -> None:
        self.calls += 1
        self.input_tokens += completion.input_tokens
        self.output_tokens += completion.output_tokens
        self.latency_s += completion.latency_s


#: A role's parser: the reply text → (value, None) or (None, one line saying what is wrong).
type Parser[T] = Callable[[str], tuple[T | None, str | None]]


def problem_of(completion: Completion, parsed_problem: str) -> str:
    """The one-line reason a reply was unusable, naming a cut-off or empty reply first."""
    if completion.finish_reason == "length":
        return f"reply cut off at the token limit: {parsed_problem}"
    if not completion.content.strip():
        return "empty reply"
    return parsed_problem


def repair_message(problem: str, example: str) -> Message:
    return Message("user", f"Your reply could not be used: {problem}. Answer again with exactly one JSON "
                           f"object and nothing else, shaped like: {example}", "parse_error_feedback")


async def ask_json[T](model: ChatModel, messages: list[Message], name: str, schema: JSONSchema,
                   parse: Parser[T], example: str, repairs: int = 1) -> StructuredReply[T]:
    """One structured answer from ``model`` (see the module docstring); never raises a ModelError."""
    result: StructuredReply[T] = StructuredReply(None)
    conversation = list(messages)
    for attempt in range(repairs + 1):
        try:
            with response_schema(name, schema):
                completion = await model.complete(conversation)
        except BudgetExceeded:
            raise
        except OutputTruncated as exc:  # what arrived before the token limit: parsed, and repaired if need be
            completion = Completion(exc.content, model=getattr(model, "name", ""), finish_reason="length")
        except ModelError as exc:
            failed = f"model error: {type(exc).__name__}: {exc}"
            result.error = f"{result.error}; then {failed}" if result.error else failed
            return result
        result.count(completion)
        result.raw = completion.content
        value, problem = parse(completion.content)
        if value is not None:
            result.value, result.error, result.repairs = value, "", attempt
            return result
        result.error = problem_of(completion, problem or "the reply was cut off")
        result.problems.append(result.error)
        conversation += [Message("assistant", completion.content, "reply"), repair_message(result.error, example)]
    result.repairs = repairs
    return result
