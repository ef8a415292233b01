"""The offline Code-Modify agent's catalogue: generic mechanisms as real function files, several per module.

Each mechanism is a *source template*: a plain ``.py`` file in this package directory that is a valid
function file of a generation (top-level MODULE/ROLE/DESCRIPTION/PARAMETERS, its contract's callables,
only the imports ``harness.checks`` allows). They are read as text (:func:`source`) and written into a
staging generation; nothing here imports them. Nothing in them is task-specific.

Every module has at least three: some undo a failure the ``sim`` world may have, some are inert in it,
some make it worse — which is which depends on the world, and no entry says so (the sim editor chooses
by reading, :mod:`modularrsi.offline.sim_editor`; only ``bench/credit_truth.py`` holds the ground truth).
``REGRESSIONS`` names, per module, the harmful-looking entry the editor writes as its ``regression``
bad patch, so that every gate is exercised.

Invariants: every entry's ``name`` is a file ``<name>.py`` here whose MODULE/ROLE equal the entry's;
``placement`` is ``first``/``last`` for additive functions (position in the module's active list) and
``replace`` for core functions (they replace the active core of the slot).
"""

from __future__ import annotations

from dataclasses import dataclass
from importlib import resources
from typing import Literal

from modularrsi.util.errors import UserError


class CatalogueError(UserError):
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


_GOOD = (
    Mechanism("evidence_check", "completion", "evidence_check", "additive", "last",
              "ask for requirement-by-requirement verification with commands before accepting a claim",
              "Agents claim completion after skipping an easy-to-overlook requirement, and a plain 'are you "
              "sure?' rarely makes them look again, because it asks for no evidence. Challenging the claim "
              "with a request to verify each requirement with a command leads the agent to find and do the "
              "skipped step before grading, at the cost of one turn per challenge."),
    Mechanism("requirements_recap", "completion", "requirements_recap", "additive", "last",
              "restate the instruction's requirements, numbered, when the agent claims completion",
              "Agents claim completion with a requirement of the instruction left undone, because the "
              "requirement scrolled out of their attention long before the claim. Restating the task's own "
              "requirements at the claim puts the overlooked one in front of the agent again, so that it does "
              "the missing work before grading."),
    Mechanism("outputs_checklist", "completion", "outputs_checklist", "additive", "last",
              "list the output paths the instruction names and ask to show each before accepting a claim",
              "Agents stop and claim completion before writing every output file the task asks for, since "
              "nothing checks that the outputs exist. Listing the paths the task names and asking the agent "
              "to show each one leads it to notice and produce a missing output before grading."),
    Mechanism("loop_guard", "agent_loop", "loop_guard", "additive", "last",
              "warn when the last command batches repeat and ask for a change of approach",
              "Agents fall into loops that send the same command turn after turn and lose track of the task "
              "when they leave them on their own. An explicit warning that names the repeated command breaks "
              "the loop early, so that the agent returns to the remaining work instead of wasting turns."),
    Mechanism("task_reminder", "agent_loop", "task_reminder", "additive", "last",
              "append the task's instruction to the prompt every few turns",
              "Agents lose sight of the task in long episodes, repeating commands or forgetting steps, "
              "because the instruction lies far back in their context. Putting the instruction back in front "
              "of them every few turns leads them back to the remaining work, at the cost of a longer context."),
    Mechanism("turn_counter", "agent_loop", "turn_counter", "additive", "last",
              "tell the agent how many turns it has used every few turns",
              "Agents run out of turns in the middle of a task because they do not know how many they have "
              "used. A short note of the turns used and the limit leads them to pace the work and finish "
              "before the limit."),
    Mechanism("trim_listing", "observation", "trim_listing", "additive", "first",
              "collapse long listings to head and tail with a count, keeping error lines",
              "Long listings and logs fill an observation with lines the agent does not need, which leads "
              "agents to misread what was done and crowds the context. Collapsing them to head and tail with "
              "a count, while keeping the error lines, keeps the signal so the agent is not confused by bulk."),
    Mechanism("tail_window", "observation", "tail_window", "additive", "first",
              "keep only the last lines of a long output, with a count of what was cut",
              "Long command output buries the result of the latest command, which leads agents to misjudge "
              "what happened. Keeping the end of a long output, where most commands report their result, "
              "keeps observations short so that the agent is not confused by bulk."),
    Mechanism("strip_ansi", "observation", "strip_ansi", "additive", "first",
              "remove colour escape codes and progress-bar overdraws from observations",
              "Coloured and animated output fills observations with escape codes and overdrawn lines, which "
              "leads agents to misread the text a person would see. Removing them keeps the observation to "
              "its readable text."),
    Mechanism("rolling_compaction", "context", "rolling_compaction", "core", "replace",
              "summarise early and repeatedly, keeping the latest exchanges verbatim",
              "Agents lose the plan in long histories well before the context window is full, because the "
              "baseline only summarises near the limit. Compacting early and repeatedly, with the latest "
              "exchanges kept verbatim, keeps the plan in a short summary so that long episodes stay on track."),
    Mechanism("instruction_pin", "context", "instruction_pin", "core", "replace",
              "pin the task's instruction again at the end of the history once it lies far back",
              "Agents forget details of the task once the instruction lies far back in a long history, "
              "because everything since pushes it out of their attention. Adding the instruction again at "
              "the end of the history, without a summary, keeps the task in view so that steps are not dropped."),
    Mechanism("late_summary", "context", "late_summary", "core", "replace",
              "summarise only when the context is nearly full, in one call",
              "Summaries lose details the agent still needs, and three calls per handoff cost time, because "
              "the baseline summarises while a lot of room is left. Summarising later and in one call keeps "
              "more of the history verbatim so that fewer details are lost."),
    Mechanism("forget_refused", "context", "forget_refused", "core", "replace",
              "take a refused reply out of the history and ask its message again with the parser's error noted",
              "Models answer parse-error feedback by sending the refused reply again word for word, turn after "
              "turn, because their own refused text is the last thing in their context and they copy it. "
              "Taking the refused reply out and asking the message it answered again, with the error named, "
              "leads the model to write the reply afresh so that the loop ends after one retry."),
    Mechanism("json_repair", "tool_use", "terminus_json_repair", "core", "replace",
              "recover truncated or slightly malformed JSON replies before reporting a parse error",
              "Replies cut off after their commands, or with a trailing comma, are rejected whole, which "
              "costs a round trip because the agent must repeat itself. Recovering the JSON when nothing has "
              "to be guessed executes the intended commands at once; anything less certain still gets feedback."),
    Mechanism("quoted_feedback", "tool_use", "quoted_feedback", "core", "replace",
              "quote the start of an unparseable reply back in the parse-error feedback",
              "Agents whose reply was cut off or malformed often do not realise it and move on as if its "
              "commands had run, because the feedback does not show what arrived. Quoting the reply back "
              "leads the agent to see the problem and send the whole reply again."),
)

_HARMFUL = (
    Mechanism("errors_only", "observation", "errors_only", "additive", "first",
              "drops all output that has no error line (the agent no longer sees its commands finish)",
              "Successful output rarely carries information the agent needs, so showing only the error "
              "lines keeps observations short and prevents the context from filling with noise."),
    Mechanism("accept_first_claim", "completion", "accept_first_claim", "core", "replace",
              "accepts the first completion claim immediately",
              "Asking the agent to confirm its claim costs a turn in every episode, because the agent "
              "almost always confirms; accepting the first claim saves that turn."),
    Mechanism("retry_same_prompt", "agent_loop", "retry_same_prompt", "core", "replace",
              "re-sends the prompt after an unparseable reply instead of feeding the error back",
              "Parse-error feedback lengthens the context with text the model does not need, since a retry "
              "usually parses; re-sending the same prompt keeps the history short."),
    Mechanism("lenient_parse", "tool_use", "lenient_parse", "core", "replace",
              "treats an unparseable reply as a turn with no commands, silently",
              "Treating an unparseable reply as a turn without commands keeps the episode moving with less "
              "text, because parse-error feedback lengthens the context and the next reply usually parses."),
    Mechanism("recent_window", "context", "recent_window", "core", "replace",
              "keeps only the last exchange, dropping the instruction, with no summary",
              "A sliding window over the latest exchange keeps the context short without spending model "
              "calls on compaction, because each summary costs three calls."),
)

#: Every mechanism the sim editor may write, by tag (useful, inert and harmful ones alike: which is which
#: depends on the world, and nothing here says it).
CATALOGUE: dict[str, Mechanism] = {m.tag: m for m in (*_GOOD, *_HARMFUL)}
#: Per module, the plausible-looking change the editor writes as its ``regression`` bad patch.
REGRESSIONS: dict[str, Mechanism] = {m.module: m for m in _HARMFUL}


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
    names = {m.name for m in CATALOGUE.values()}
    if name not in names:
        raise CatalogueError(f"no catalogue template '{name}'; valid: {', '.join(sorted(names))}")
    return (resources.files(__name__) / f"{name}.py").read_text()
