"""Recorded replies: what the agent model actually sent in a direction's trials, read back from their
trajectories, for an editor of the Tool Use module to see and to test its parser against before the gates
run - the regression tests of Self-Harness, at the cost of a few function calls instead of agent attempts.

A reply is *refused* when the parser of its run refused it (the trajectory keeps its text and the error)
and *read* otherwise. :func:`check_parse` runs the parent's ``parse`` and an edited one on the same replies,
each in its own confined worker (:class:`~modularrsi.harness.probe.Probe`: an edited function is an
adversary), and counts what changed: refused replies the edit now reads (fixed), refused replies it still
refuses, and read replies it refuses or reads differently (broken: other keystrokes or completion). An
editor is refused an edit that breaks a read reply, and - where the direction is about parsing - one that
reads none of the refused replies.
"""

from __future__ import annotations

import re
import tempfile
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from pydantic import BaseModel, ConfigDict

from modularrsi.evolve.findings import Direction
from modularrsi.evolve.signals import load_steps
from modularrsi.harness import wire
from modularrsi.harness.library import Function, load_function
from modularrsi.harness.probe import Probe
from modularrsi.harness.protocols import Message, Reply, TurnRecord
from modularrsi.harness.session import FunctionError

__all__ = ["ParseCheck", "RecordedReply", "about_parsing", "about_refusals", "check_edited", "check_history",
           "check_parse", "function_of", "recorded_replies", "replies_text"]

#: The modules whose editor is shown the agent model's recorded replies: Tool Use's parser reads them, and
#: Context's history keeps them (a refused reply the model copies).
SHOWN_TO = ("tool_use", "context")
#: A direction whose mechanism or summary names one of these is about how replies are read.
PARSING = re.compile(r"pars|json|escape|malformed|reply format", re.IGNORECASE)
#: ... or about refused replies (the copy loop: the refused reply sent again).
REFUSED = re.compile(r"refus|forget", re.IGNORECASE)


class RecordedReply(BaseModel):
    """One reply of the agent model as its run recorded it."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    text: str
    error: str | None = None  # the parser's refusal when it was recorded; None: it was read


def recorded_replies(trial_dirs: Iterable[Path | str], refused: int = 6, read: int = 6,
                     max_chars: int = 4000) -> list[RecordedReply]:
    """Distinct replies of the trials' agent steps, in trial order: up to ``refused`` refused ones and
    ``read`` read ones, each at most ``max_chars`` long (a longer one is left out: it would not be shown whole)."""
    seen: set[str] = set()
    kept: dict[bool, list[RecordedReply]] = {True: [], False: []}
    for trial in trial_dirs:
        for step in load_steps(Path(trial)):
            extra = step.get("extra") if step.get("source") == "agent" else None
            if not isinstance(extra, dict):
                continue
            error = extra.get("parse_error")
            text = step.get("message") if error else extra.get("raw_reply")
            if not isinstance(text, str) or not text.strip() or len(text) > max_chars or text in seen:
                continue
            bucket = kept[bool(error)]
            if len(bucket) < (refused if error else read):
                seen.add(text)
                bucket.append(RecordedReply(text=text, error=str(error) if error else None))
    return kept[True] + kept[False]


def about_parsing(direction: Direction) -> bool:
    return bool(PARSING.search(f"{direction.mechanism} {direction.summary}"))


def about_refusals(direction: Direction) -> bool:
    """A direction about replies the parser refused (how they are read, or what the history keeps of them)."""
    return about_parsing(direction) or bool(REFUSED.search(f"{direction.mechanism} {direction.summary}"))


def replies_text(replies: list[RecordedReply], shown: int = 3, chars: int = 600) -> str:
    """The refused replies an editor is shown (the first ``shown``, each cut to ``chars``), or ""."""
    refused = [r for r in replies if r.error][:shown]
    if not refused:
        return ""
    parts = [f"Reply {i + 1}, the whole text as the parser got it:\n~~~~\n{_cut(r.text, chars)}\n~~~~\n"
             f"The parser refused it: {_error(r.error)}{_where(r)}. (That message is the parser's; it is not in "
             "the reply.)" for i, r in enumerate(refused)]
    return ("Replies of the agent model that the current parser refused, as the runs recorded them:\n\n"
            + "\n\n".join(parts) + "\n\n")


@dataclass(frozen=True)
class ParseCheck:
    """What an edited ``parse`` does with the recorded replies, against the parent's."""

    fixed: int = 0
    still: list[tuple[RecordedReply, str]] = field(default_factory=list)  # refused by both: the new refusal
    broken: list[tuple[RecordedReply, str, str]] = field(default_factory=list)  # (reply, before, now)

    def refusal(self, demand_fix: bool) -> str:
        """Why the edit is refused back to the editor (one paragraph), or ""."""
        if self.broken:
            reply, before, now = self.broken[0]
            return (f"your parse reads {len(self.broken)} recorded reply(ies) differently from the parser before "
                    f"it; e.g. this reply was {before} and is now {now}:\n{_cut(reply.text, 400)}\n"
                    "Keep every reply that was read before read the same way")
        if demand_fix and self.still and not self.fixed:
            reply, now = self.still[0]
            return (f"your parse still refuses all {len(self.still)} replies the runs recorded as refused; e.g. "
                    f"this one ({_error(now)}):\n{_cut(reply.text, 400)}\nChange parse so that it reads such a reply "
                    "(repair the text, then parse it)")
        return ""


def function_of(key: str, source: str, into: Path) -> Function:
    """The function file ``key`` (``module/name``) with ``source``, written under ``into`` and loaded (checked)."""
    path = into / f"{key}.py"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(source)
    return load_function(path)


async def check_parse(parent: Function, edited: Function, replies: list[RecordedReply]) -> ParseCheck:
    """Both parsers on every reply (see the module docstring)."""
    texts = [r.text for r in replies]
    before, now = await _parsed(parent, texts), await _parsed(edited, texts)
    fixed, still, broken = 0, [], []
    for reply, old, new in zip(replies, before, now, strict=True):
        if old[0] != "read":
            if new[0] == "read":
                fixed += 1
            else:
                still.append((reply, new[1]))
        elif old != new:
            broken.append((reply, _said(old), _said(new)))
    return ParseCheck(fixed, still, broken)


async def check_edited(parent: Function, key: str, source: str, replies: list[RecordedReply]) -> ParseCheck:
    """:func:`check_parse` for an edited source that is not on disk yet."""
    with tempfile.TemporaryDirectory(prefix="reply-check-") as tmp:
        edited = function_of(key, source, Path(tmp))
    return await check_parse(parent, edited, replies)


async def _parsed(fn: Function, texts: list[str]) -> list[tuple[str, str]]:
    """Per text: ("read", keystrokes and completion) or ("refused", the error or the failure)."""
    results: list[tuple[str, str]] = []
    try:
        async with Probe(fn, timeout_s=10.0) as probe:
            for text in texts:
                try:
                    reply = await probe.call("parse", text)
                except (FunctionError, wire.Malformed) as exc:
                    results.append(("refused", f"parse failed: {str(exc)[:200]}"))
                    continue
                if reply.error:
                    results.append(("refused", reply.error[:200]))
                else:
                    keys = [a.keystrokes for a in reply.actions]
                    results.append(("read", f"commands {keys!r}" + (" and completion" if reply.task_complete else "")))
    except (FunctionError, wire.Malformed) as exc:  # the worker did not start with this function
        results += [("refused", f"parse failed: {str(exc)[:200]}")] * (len(texts) - len(results))
    return results


def _said(result: tuple[str, str]) -> str:
    return f"read as {result[1]}" if result[0] == "read" else f"refused ({result[1]})"


def _where(reply: RecordedReply) -> str:
    """Where in the reply a JSON error points (its "(char N)", counted from the reply's first "{", where the parser's
    JSON starts): the reply's line there, cut at that point."""
    found = re.search(r"\(char (\d+)\)", reply.error or "")
    start = reply.text.find("{")
    if not found or start < 0 or start + int(found[1]) > len(reply.text):
        return ""
    at = start + int(found[1])
    head = reply.text[:at].rsplit("\n", 1)[-1]
    rest = reply.text[at:].split("\n", 1)[0]
    where = f"; it points at the end of the line {head!r}" if not rest else \
        f"; it points between {head[-60:]!r} and {rest[:60]!r}"
    return f"{where} (line {reply.text[:at].count(chr(10)) + 1} of the reply)"


def _error(error: str | None) -> str:
    """An error as the model is shown it: Harbor's parser appends a preview of the reply, which is shown anyway."""
    return (error or "").split(" | Content preview:")[0].strip()


def _cut(text: str, chars: int) -> str:
    return text if len(text) <= chars else text[:chars] + f"... [{len(text) - chars} more characters]"


class _Room:
    """The model as a probed Context function sees it: context to spare, so its own summarising never fires."""

    def context_limit(self) -> int:
        return 1_000_000

    def count_tokens(self, messages: list[Message]) -> int:
        return sum(len(m.content) for m in messages) // 4

    async def ask(self, messages: list[Message], purpose: str) -> str:
        raise RuntimeError("no model answers in this check: a history edit must not need one")


async def check_history(key: str, source: str, replies: list[RecordedReply]) -> str:
    """An edited Context core (``key``) on a history whose last reply is a recorded refused one, and on one whose
    last reply is a recorded read one, in a confined worker: why it is refused (it returns the history ending in
    the refused reply unchanged, or changes a history the parser read), or "". What an edit does with the refused
    reply (drops it, rewords it, moves it) is for the execution gate to judge."""
    with tempfile.TemporaryDirectory(prefix="history-check-") as tmp:
        edited = function_of(key, source, Path(tmp))
    problems = []
    for reply in (next((r for r in replies if r.error), None), next((r for r in replies if not r.error), None)):
        if reply is None:
            continue
        history = [Message("user", "Do the task.", "instruction"), Message("assistant", reply.text, "reply")]
        turns = [TurnRecord(1, "instruction", Reply(raw=reply.text, error=reply.error))]
        try:
            async with Probe(edited, instruction="Do the task.", turns=turns, model=_Room(), timeout_s=10.0) as p:
                new = await p.call("before_query", history)
        except (FunctionError, wire.Malformed) as exc:
            return f"your before_query failed on a recorded reply: {str(exc)[:200]}"
        changed = new is not None and list(new) != history
        if reply.error and not changed:
            problems.append("it leaves a history whose last reply the parser refused as it was, so the model still "
                            "sees that reply (and sends it again)")
        if not reply.error and changed:
            problems.append("it changes a history whose last reply the parser read")
    return "; ".join(problems)
