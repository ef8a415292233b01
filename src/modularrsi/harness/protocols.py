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

Contracts (``ctx`` is always the last argument):

===============  ======  ===========================================================================
module           role    callables
===============  ======  ===========================================================================
agent_loop       core    ``async run(loop: LoopAPI) -> Ending``
agent_loop       add.    ``intervene(ctx) -> str | None`` — a message appended to the next prompt
tool_use         core    ``initial_prompt(instruction, terminal_state, ctx) -> str``,
                         ``parse(text, ctx) -> Reply``, ``parse_error_feedback(reply, ctx) -> str``,
                         ``async execute(actions, ctx) -> str`` (the terminal output as read)
observation      add.    ``shape(output, ctx) -> str`` — applied in order to the initial screen and
                         every observation (not to what completion judges: it sees ``execute``'s text)
context          core    ``async before_query(history, ctx) -> list[Message] | None`` (a new history,
                         e.g. after proactive summarisation), ``async on_overflow(history, ctx) ->
                         list[Message]`` (``history`` ends with the prompt that did not fit; must
                         shrink it). Model calls with purpose ``summarization_<kind>`` are recorded
                         as summary sub-trajectories.
completion       core    ``on_claim(reply, output, ctx) -> Verdict``
completion       add.    ``check(reply, output, ctx) -> str | None`` — a challenge that blocks a claim
===============  ======  ===========================================================================
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, Protocol

from modularrsi.models.base import Message

if TYPE_CHECKING:
    pass

MODULES = ("agent_loop", "tool_use", "observation", "context", "completion")
MODULE_TITLES = {
    "agent_loop": "Agent Loop", "tool_use": "Tool Use", "observation": "Observation Management",
    "context": "Context Management", "completion": "Task Completion Detection",
}
#: Callables each (module, role) must define, with whether each is a coroutine function.
CONTRACTS: dict[tuple[str, str], dict[str, bool]] = {
    ("agent_loop", "core"): {"run": True},
    ("agent_loop", "additive"): {"intervene": False},
    ("tool_use", "core"): {"initial_prompt": False, "parse": False, "parse_error_feedback": False,
                           "execute": True},
    ("observation", "additive"): {"shape": False},
    ("context", "core"): {"before_query": True, "on_overflow": True},
    ("completion", "core"): {"on_claim": False},
    ("completion", "additive"): {"check": False},
}
#: Slots that need exactly one active core function.
CORE_SLOTS = ("agent_loop", "tool_use", "context", "completion")

__all__ = ["Action", "CONTRACTS", "CORE_SLOTS", "Ctx", "Ending", "LoopAPI", "LoopState", "MODULES",
           "Message", "Reply", "Terminal", "Verdict", "limit_bytes", "reply_text"]


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
