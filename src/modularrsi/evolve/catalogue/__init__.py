"""The offline Code-Modify agent's catalogue: generic mechanisms as real function files, one per module.

Each mechanism is a *source template*: a plain ``.py`` file in this package directory that is a valid
function file of a generation (top-level MODULE/ROLE/DESCRIPTION/PARAMETERS, its contract's callables,
only the imports ``harness.library`` allows). They are read as text (:func:`source`) and written into a
staging generation; nothing here imports them. Nothing in them is task-specific.

``REGRESSIONS`` holds, per module, a plausible-looking function that makes the harness worse; the sim
editor writes one now and then instead of the asked mechanism so that every gate is exercised.
``caught_by`` says which gate is expected to stop it *in the sim world* (the reviewer should stop all of
them; the execution gate only those the ``sim`` model reacts to).

Invariants: every entry's ``name`` is a file ``<name>.py`` here whose MODULE/ROLE equal the entry's;
``placement`` is ``first``/``last`` for additive functions (position in the module's active list) and
``replace`` for core functions (they replace the active core of the slot).
"""

from __future__ import annotations

from dataclasses import dataclass
from importlib import resources
from typing import Literal


class CatalogueError(ValueError):
    """An unknown mechanism tag or template name (the message lists the valid ones)."""


@dataclass(frozen=True)
class Mechanism:
    """One catalogue entry: which function file to write, where, and what it is for."""

    tag: str
    module: str
    name: str
    role: Literal["core", "additive"]
    placement: Literal["first", "last", "replace"]
    summary: str
    rationale: str = ""
    caught_by: str = ""


CATALOGUE: dict[str, Mechanism] = {m.tag: m for m in (
    Mechanism("evidence_check", "completion", "evidence_check", "additive", "last",
              "ask for requirement-by-requirement verification with commands before accepting a claim",
              "Agents claim completion after skipping an easy-to-overlook requirement, and a plain 'are you "
              "sure?' rarely makes them look again, because it asks for no evidence. Challenging the claim "
              "with a request to verify each requirement with a command leads the agent to find and do the "
              "skipped step before grading, at the cost of one turn per challenge."),
    Mechanism("loop_guard", "agent_loop", "loop_guard", "additive", "last",
              "warn when the last command batches repeat and ask for a change of approach",
              "Agents fall into loops that send the same command turn after turn and lose track of the task "
              "when they leave them on their own. An explicit warning that names the repeated command breaks "
              "the loop early, so that the agent returns to the remaining work instead of wasting turns."),
    Mechanism("trim_listing", "observation", "trim_listing", "additive", "first",
              "collapse long listings to head and tail with a count, keeping error lines",
              "Long listings and logs fill an observation with lines the agent does not need, which leads "
              "agents to misread what was done and crowds the context. Collapsing them to head and tail with "
              "a count, while keeping the error lines, keeps the signal so the agent is not confused by bulk."),
    Mechanism("rolling_compaction", "context", "rolling_compaction", "core", "replace",
              "summarise early and repeatedly, keeping the latest exchanges verbatim",
              "Agents lose the plan in long histories well before the context window is full, because the "
              "baseline only summarises near the limit. Compacting early and repeatedly, with the latest "
              "exchanges kept verbatim, keeps the plan in a short summary so that long episodes stay on track."),
    Mechanism("json_repair", "tool_use", "terminus_json_repair", "core", "replace",
              "recover truncated or slightly malformed JSON replies before reporting a parse error",
              "Replies cut off after their commands, or with a trailing comma, are rejected whole, which "
              "costs a round trip because the agent must repeat itself. Recovering the JSON when nothing has "
              "to be guessed executes the intended commands at once; anything less certain still gets feedback."),
)}

REGRESSIONS: dict[str, Mechanism] = {m.module: m for m in (
    Mechanism("errors_only", "observation", "errors_only", "additive", "first",
              "drops all output that has no error line (the agent no longer sees its commands finish)",
              "Successful output rarely carries information the agent needs, so showing only the error "
              "lines keeps observations short and prevents the context from filling with noise.",
              caught_by="execution (sim waits for output that never comes: many more steps)"),
    Mechanism("accept_first_claim", "completion", "accept_first_claim", "core", "replace",
              "accepts the first completion claim immediately",
              "Asking the agent to confirm its claim costs a turn in every episode, because the agent "
              "almost always confirms; accepting the first claim saves that turn.",
              caught_by="review (in sim it only removes the rare recovery after 'are you sure?')"),
    Mechanism("retry_same_prompt", "agent_loop", "retry_same_prompt", "core", "replace",
              "re-sends the prompt after an unparseable reply instead of feeding the error back",
              "Parse-error feedback lengthens the context with text the model does not need, since a retry "
              "usually parses; re-sending the same prompt keeps the history short.",
              caught_by="execution (sim loses the step of a malformed reply)"),
    Mechanism("lenient_parse", "tool_use", "lenient_parse", "core", "replace",
              "treats an unparseable reply as a turn with no commands, silently",
              "Treating an unparseable reply as a turn without commands keeps the episode moving with less "
              "text, because parse-error feedback lengthens the context and the next reply usually parses.",
              caught_by="execution (sim loses the step of a malformed reply)"),
    Mechanism("recent_window", "context", "recent_window", "core", "replace",
              "keeps only the last exchange, dropping the instruction, with no summary",
              "A sliding window over the latest exchange keeps the context short without spending model "
              "calls on compaction, because each summary costs three calls.",
              caught_by="review (sim does not read the history's content)"),
)}


def mechanism(tag: str) -> Mechanism:
    """The catalogue entry for ``tag``; :class:`CatalogueError` lists the valid tags."""
    if tag not in CATALOGUE:
        raise CatalogueError(f"unknown mechanism '{tag}'; valid: {', '.join(sorted(CATALOGUE))}")
    return CATALOGUE[tag]


def for_module(module: str) -> list[Mechanism]:
    """The catalogue's mechanisms for one module (in catalogue order)."""
    return [m for m in CATALOGUE.values() if m.module == module]


def source(name: str) -> str:
    """The text of template ``<name>.py`` of this package (read, never imported)."""
    names = {m.name for m in (*CATALOGUE.values(), *REGRESSIONS.values())}
    if name not in names:
        raise CatalogueError(f"no catalogue template '{name}'; valid: {', '.join(sorted(names))}")
    return (resources.files(__name__) / f"{name}.py").read_text()
