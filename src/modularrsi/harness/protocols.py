"""The five module contracts and the small values they exchange (frozen: generations depend on it).

A *function* is one Python file in ``gen_N/modules/<module>/``. It declares, at top level::

    MODULE = "observation"            # one of MODULES
    ROLE = "additive"                 # "core" (exactly one active per slot) or "additive" (0..n, ordered)
    DESCRIPTION = "what it does and when it helps (one paragraph; the composer reads it)"
    PARAMETERS = {"max_bytes": 10000} # JSON values; reach the code as ctx.params

and the callables its module's contract names (below). A function imports only this module, a named
set of side-effect-free standard-library modules and the kernel's allowlist (``checks.ALLOWED_STDLIB``,
``checks.ALLOWED_IMPORTS``; the rest of the rules are in :mod:`modularrsi.harness.checks`).
Everything stateful — terminal, model, clock, limits, the loop's state — reaches it through ``ctx``
(:class:`Ctx`).

The contracts are declared once, in :data:`CONTRACT_TABLE`; the kernel's result checks, the loader's
and the editor's lists of callables and this table are read from it (a test keeps the table below
equal to :func:`contract_table`). What the agent-loop core and ``ctx`` can ask of the orchestrator is
declared once too, as the :class:`LoopAPI`, :class:`Terminal` and :class:`ModelAPI` protocols; the
worker's proxies and the orchestrator's request handlers are built from them
(:func:`modularrsi.harness.steps.steps`).

Contracts (``ctx`` is always the last argument):

===============  ======  ===========================================================================
module           role    callables
===============  ======  ===========================================================================
agent_loop       core    ``async run(loop) -> Ending`` — drives the episode through ``loop``, the
                         :class:`LoopAPI`
agent_loop       add.    ``intervene(ctx) -> str | None`` — a message appended to the next prompt
tool_use         core    ``initial_prompt(instruction, terminal_state, ctx) -> str``; ``parse(text,
                         ctx) -> Reply``; ``parse_error_feedback(reply, ctx) -> str``; ``async
                         execute(actions, ctx) -> str`` — the terminal output as read
observation      add.    ``shape(output, ctx) -> str`` — applied in order to the initial screen and
                         every observation (not to what completion judges: it sees ``execute``'s
                         text)
context          core    ``async before_query(history, ctx) -> list[Message] | None`` — a new
                         history (e.g. after proactive summarisation); None or [] keeps it; ``async
                         on_overflow(history, ctx) -> list[Message]`` — ``history`` ends with the
                         prompt that did not fit; must shrink it. Model calls with purpose
                         ``summarization_<kind>`` are recorded as summary sub-trajectories.
completion       core    ``on_claim(reply, output, ctx) -> Verdict``
completion       add.    ``check(reply, output, ctx) -> str | None`` — a challenge that blocks a
                         claim
===============  ======  ===========================================================================
"""

from __future__ import annotations

import textwrap
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol, Union, get_args, get_origin

from modularrsi.models.base import Message

#: The five modules, in the paper's order; :data:`MODULE_TITLES` gives each one's name in prose.
Module = Literal["agent_loop", "tool_use", "observation", "context", "completion"]
MODULES: tuple[Module, ...] = get_args(Module)
MODULE_TITLES: dict[Module, str] = {
    "agent_loop": "Agent Loop", "tool_use": "Tool Use", "observation": "Observation Management",
    "context": "Context Management", "completion": "Task Completion Detection",
}
#: "core": exactly one active per module that has a core contract; "additive": 0..n, applied in order.
Role = Literal["core", "additive"]
#: The top-level names a function file declares (see above).
DECLARED = ("MODULE", "ROLE", "DESCRIPTION", "PARAMETERS")

__all__ = ["Action", "CONTRACTS", "CONTRACT_TABLE", "CORE_SLOTS", "Contract", "Ctx", "Ending", "LoopAPI",
           "LoopState", "MODULES", "Message", "Module", "Reply", "Terminal", "Verdict", "limit_bytes",
           "reply_text"]


def limit_bytes(text: str, max_bytes: int) -> str:
    """``text`` if its UTF-8 form fits ``max_bytes``, else its first and last ``max_bytes // 2`` bytes
    around a line saying how many interior bytes were left out (Terminus-2's rule and wording)."""
    data = text.encode("utf-8")
    if len(data) <= max_bytes:
        return text
    half = max_bytes // 2
    head = data[:half].decode("utf-8", errors="ignore")
    tail = data[-half:].decode("utf-8", errors="ignore")
    omitted = len(data) - len(head.encode("utf-8")) - len(tail.encode("utf-8"))
    return f"{head}\n[... output limited to {max_bytes} bytes; {omitted} interior bytes omitted ...]\n{tail}"


def reply_text(value: object) -> str:
    """A reply field of any JSON type (Harbor's parser passes numbers, null, objects, lists and booleans
    through, with a warning) as Terminus-2 shows it: ``str(value)`` when the value is truthy, else ``""``
    (it writes ``f"Analysis: {analysis}"`` only ``if analysis``)."""
    return str(value) if value else ""


class LimitReached(Exception):
    """A turn or time limit of the episode was reached, or its shell is gone (``reason``: the ending's)."""

    def __init__(self, reason: str, detail: str):
        super().__init__(detail)
        self.reason = reason


@dataclass(frozen=True)
class Action:
    """Keystrokes for the terminal and how long to wait after sending them (seconds)."""

    keystrokes: str
    duration: float = 1.0


@dataclass(frozen=True)
class Reply:
    """A model reply as Tool Use understood it. ``error`` set means: execute nothing, feed it back."""

    raw: str
    analysis: str = ""
    plan: str = ""
    actions: tuple[Action, ...] = ()
    task_complete: bool = False
    error: str | None = None
    warning: str | None = None


@dataclass(frozen=True)
class Verdict:
    """What Task Completion decided about a claim: stop, or send ``message`` and go on."""

    done: bool
    message: str | None = None
    purpose: str = "completion_check"


@dataclass(frozen=True)
class Ending:
    """How an episode ended (a small closed set; the kernel raises for limits and model failure;
    ``harness_error``: a function failed at run time, recorded by the kernel, never returned by one)."""

    reason: Literal["completed", "turn_limit", "time_limit", "session_ended", "model_error", "budget",
                    "harness_error"]
    turns: int
    detail: str = ""


@dataclass
class TurnRecord:
    """One turn as the loop saw it (kept in :class:`LoopState` for functions to read)."""

    index: int
    prompt_purpose: str
    reply: Reply
    output: str = ""
    observation: str = ""


@dataclass
class LoopState:
    """What the loop has done so far. Functions read it; only the kernel and the loop core write it."""

    instruction: str
    turn: int = 0
    max_turns: int | None = None
    pending_completion: bool = False
    completion_claims: int = 0
    parse_errors: int = 0
    compactions: int = 0
    turns: list[TurnRecord] = field(default_factory=list)
    notes: dict[str, Any] = field(default_factory=dict)

    def recent_keystrokes(self, n: int = 6) -> list[str]:
        """Keystrokes of the last ``n`` turns that executed something, oldest first."""
        keys = ["".join(a.keystrokes for a in t.reply.actions) for t in self.turns if t.reply.actions]
        return keys[-n:]


class Terminal(Protocol):
    """The terminal the kernel owns (a tmux session inside the task's environment)."""

    async def send_keys(self, keys: str, min_timeout_sec: float = 0.0) -> None: ...

    async def incremental_output(self) -> str: ...

    async def screen(self) -> str: ...

    async def exec(self, command: str, timeout_sec: int | None = None) -> tuple[int, str]: ...


class ModelAPI(Protocol):
    """The agent's model as functions may use it (the kernel counts, caches and budgets calls)."""

    async def ask(self, messages: list[Message], purpose: str) -> str: ...

    def context_limit(self) -> int: ...

    def count_tokens(self, messages: list[Message]) -> int: ...


@dataclass
class Ctx:
    """Everything a function may touch. ``params`` are the function's own PARAMETERS (possibly
    overridden by the manifest); ``memo`` is private to the function for one episode."""

    state: LoopState
    terminal: Terminal
    model: ModelAPI
    params: dict[str, Any]
    memo: dict[str, Any]
    history: list[Message]


class LoopAPI(Protocol):
    """The named steps the Agent Loop core composes (each dispatches to the active functions)."""

    state: LoopState

    async def initial_prompt(self) -> Message: ...

    async def maintain_context(self, prompt: Message) -> Message:
        """Let Context Management act before a query; returns the prompt to send (a handoff may replace it)."""
        ...

    async def query(self, prompt: Message) -> Reply: ...

    def parse_error_feedback(self, reply: Reply) -> Message: ...

    async def execute(self, reply: Reply) -> str: ...

    def observe(self, reply: Reply, output: str) -> Message: ...

    def judge_completion(self, reply: Reply, output: str) -> Verdict: ...

    def interventions(self) -> list[str]: ...

    def record(self, prompt: Message, reply: Reply, output: str, response: Message) -> None: ...

    def check_limits(self) -> None: ...


# ---------------------------------------------------------------------------------------- contracts
@dataclass(frozen=True)
class Contract:
    """One callable that a function of ``(module, role)`` defines: its parameters as the kernel passes
    them, whether it is a coroutine function, and the type its result must have (checked at every
    call; ``nonempty``: a list result may not be empty)."""

    module: Module
    role: Role
    name: str
    params: tuple[str, ...]
    returns: Any
    is_async: bool = False
    nonempty: bool = False
    doc: str = ""

    def signature(self) -> str:
        head = f"{'async ' if self.is_async else ''}{self.name}({', '.join(self.params)})"
        return f"``{head} -> {type_text(self.returns)}``" + (f" — {self.doc}" if self.doc else "")


#: Every module contract: the one place a callable is declared, with the positional arguments the
#: kernel passes (``ctx`` always last, but in ``run``).
CONTRACT_TABLE: tuple[Contract, ...] = (
    Contract("agent_loop", "core", "run", ("loop",), Ending, is_async=True,
             doc="drives the episode through ``loop``, the :class:`LoopAPI`"),
    Contract("agent_loop", "additive", "intervene", ("ctx",), str | None,
             doc="a message appended to the next prompt"),
    Contract("tool_use", "core", "initial_prompt", ("instruction", "terminal_state", "ctx"), str),
    Contract("tool_use", "core", "parse", ("text", "ctx"), Reply),
    Contract("tool_use", "core", "parse_error_feedback", ("reply", "ctx"), str),
    Contract("tool_use", "core", "execute", ("actions", "ctx"), str, is_async=True,
             doc="the terminal output as read"),
    Contract("observation", "additive", "shape", ("output", "ctx"), str,
             doc="applied in order to the initial screen and every observation (not to what completion "
                 "judges: it sees ``execute``'s text)"),
    Contract("context", "core", "before_query", ("history", "ctx"), list[Message] | None, is_async=True,
             doc="a new history (e.g. after proactive summarisation); None or [] keeps it"),
    Contract("context", "core", "on_overflow", ("history", "ctx"), list[Message], is_async=True, nonempty=True,
             doc="``history`` ends with the prompt that did not fit; must shrink it. Model calls with "
                 "purpose ``summarization_<kind>`` are recorded as summary sub-trajectories."),
    Contract("completion", "core", "on_claim", ("reply", "output", "ctx"), Verdict),
    Contract("completion", "additive", "check", ("reply", "output", "ctx"), str | None,
             doc="a challenge that blocks a claim"),
)
_BY_NAME = {c.name: c for c in CONTRACT_TABLE}
#: Callables each (module, role) must define, with whether each is a coroutine function.
CONTRACTS: dict[tuple[str, str], dict[str, bool]] = {}
for _c in CONTRACT_TABLE:
    CONTRACTS.setdefault((_c.module, _c.role), {})[_c.name] = _c.is_async
#: Modules that need exactly one active core function.
CORE_SLOTS: tuple[Module, ...] = tuple(m for m in MODULES if (m, "core") in CONTRACTS)


def contract(name: str) -> Contract:
    """The contract of callable ``name`` (callable names are unique across modules)."""
    return _BY_NAME[name]


def type_text(hint: Any) -> str:
    """A type expression as the contracts write it (``list[Message] | None``)."""
    if hint is None or hint is type(None):
        return "None"
    if get_origin(hint) in (Union, type(int | None)):
        return " | ".join(type_text(a) for a in get_args(hint))
    if get_args(hint):
        return f"{get_origin(hint).__name__}[{', '.join(type_text(a) for a in get_args(hint))}]"
    return getattr(hint, "__name__", str(hint))


def contract_table() -> str:
    """The contracts as the reStructuredText table in this module's docstring."""
    rule = "=" * 15 + "  " + "=" * 6 + "  " + "=" * 75
    lines = ["Contracts (``ctx`` is always the last argument):", "", rule,
             f"{'module':<15}  {'role':<6}  callables", rule]
    for (module, role), names in CONTRACTS.items():
        text = "; ".join(contract(n).signature() for n in names)
        for i, line in enumerate(textwrap.wrap(text, 75, break_on_hyphens=False)):
            first = (module, "add." if role == "additive" else role) if i == 0 else ("", "")
            lines.append(f"{first[0]:<15}  {first[1]:<6}  {line}".rstrip())
    return "\n".join([*lines, rule])
