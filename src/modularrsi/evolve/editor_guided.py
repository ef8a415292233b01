"""The guided editor protocol, for a model too small to drive the tool loop (``editor: {format: guided}``).

Given the tool loop, the local 1.5B wrote the file it had been shown over itself, again and again, and
called nothing else until its turns ran out. Here the harness asks for one thing at a time and does the
rest itself:

1. **the file** - a NEW additive file named after the direction's mechanism where the module takes one
   (the harness activates it after the module's active files), else the module's core file rewritten
   whole - or, for a direction about a core callable's input (Tool Use's refused replies), one function that
   the harness puts in front of that callable (:mod:`~modularrsi.evolve.editor_hole`). The reply's first code
   block (or the bare reply) is the file, checked as any edit is: it parses,
   the import allowlist, banned constructs, the contract, a change of code and not only of comments. A
   refusal asks for the whole file again, with the reason;
2. **the description** - one sentence completing a causal template, checked by the review pre-screen's
   rule; then the staging generation is written (a generation that does not load goes back to step 1).

Each answer is a turn of the editor's ``max_turns``; what the model is told up front is the tool loop's
system prompt and task message, with the file to write as the task's last line. Each turn is sent only the
task, the last answer and what was said to it. Once the model sends an answer again unchanged, each later
turn is sent the task alone with the last reason appended, sampled hotter (0.75, then 1.0), each answer
tested by the checks above - a generate-and-test search: with its earlier answers in view, even at 0.75, the
1.5B sent one answer sixteen times over.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Protocol

from modularrsi.evolve.edit_request import EditRequest
from modularrsi.evolve.editor_hole import Hole, copied, fill, hole_for
from modularrsi.evolve.editor_prompt import FENCE, asked_file
from modularrsi.evolve.editor_workspace import Workspace
from modularrsi.evolve.gates.prescreen import PrescreenRules, description_problem
from modularrsi.evolve.proposal import Proposal
from modularrsi.harness.library import Generation
from modularrsi.harness.protocols import CONTRACTS
from modularrsi.models.base import Message
from modularrsi.models.structured import temperature


class GuidedEditor(Protocol):
    """What the guided protocol uses of :class:`~modularrsi.evolve.editor.LLMEditor`."""

    max_turns: int
    rules: PrescreenRules

    async def ask(self, messages: list[Message], refusal: str, shorter: str) -> str | None: ...

    def code_refusal(self, workspace: Workspace, parent: Generation) -> str: ...

    async def reply_refusal(self, workspace: Workspace, parent: Generation, request: EditRequest) -> str: ...

    def finish(self, workspace: Workspace, parent: Generation, request: EditRequest, staging_dir: Path,
               description: str) -> str: ...

__all__ = ["GuidedEditor", "closing", "guided_edit", "hole", "target"]

DESCRIBE = ('Now describe your change in one sentence of this form, filled in: "Agents <what the runs showed> '
            "because the harness <what in it caused that>; this change <what it does>, so that <the different "
            'behaviour>." Answer with the sentence only.')


def target(request: EditRequest, parent: Generation) -> tuple[str, list[str] | None]:
    """The file the model writes (``module/name``) and the module's active list once it is written (None:
    the core file is rewritten in place and the list stays)."""
    module = request.module
    active = parent.default_active().get(module, [])
    if (module, "additive") in CONTRACTS:
        base = re.sub(r"[^a-z0-9]+", "_", request.direction.mechanism.lower()).strip("_") or "mechanism"
        name = base if base[0].isalpha() else f"m_{base}"
        taken, n = set(parent.functions), 2
        while f"{module}/{name}" in taken:
            name, n = f"{base}_{n}", n + 1
        return f"{module}/{name}", [*active, name]
    core = next(n for n in active if parent.functions[f"{module}/{n}"].role == "core")
    return f"{module}/{core}", None


def hole(request: EditRequest, parent: Generation) -> Hole | None:
    """The function to write instead of the whole core file (:mod:`~modularrsi.evolve.editor_hole`), if any."""
    key, activated = target(request, parent)
    return None if activated else hole_for(request, parent.functions[key].source)


def closing(request: EditRequest, parent: Generation) -> str:
    """The task message's last line: the one file (or function) to write."""
    if (asked := hole(request, parent)) is not None:
        return asked.ask()
    key, activated = target(request, parent)
    module = request.module
    what = (f"a NEW additive file whose {', '.join(CONTRACTS[(module, 'additive')])} carries out the suggested "
            f"change (it runs after the module's active files; do not copy one of them)" if activated else
            f"{module}'s core file, rewritten whole so that it carries out the suggested change")
    return (f"Write {key}.py: {what}. Answer with the whole file in one {FENCE}python block and nothing else; "
            "you will then be asked for a one-sentence description.")


async def guided_edit(editor: GuidedEditor, request: EditRequest, parent: Generation, workspace: Workspace,
                      messages: list[Message], staging_dir: Path) -> Proposal | str:
    """Ask for the file, then for the description, each until it passes; the proposal, or why it failed."""
    key, activated = target(request, parent)
    asked = hole(request, parent)
    again = asked.again() if asked else f"Send the whole file {key}.py again, fixed, in one {FENCE}python block."
    refusal, written, sent_before, repeats = "", False, None, 0

    def tell(text: str) -> None:
        messages.append(Message("user", text, purpose="tool_result"))

    for _ in range(editor.max_turns):
        shorter = "one sentence" if written else asked.shorter() if asked else "send the whole file alone"
        # a small model copies its own earlier answers (the 1.5B sent one function 16 times): each turn is sent
        # the task, the last answer and what was said to it - the transcript keeps everything
        view = [*messages[:2], *messages[2:][-2:]]
        if repeats and not written:  # it copied itself: from then on the task alone, said to differ, sampled hotter
            view = [messages[0], Message("user", f"{messages[1].content}\n\nEarlier answers were refused, the last "
                                         f"because {refusal}. Write a different one.", purpose="editor_task")]
        seen = len(view)
        with temperature(None if not repeats else min(1.0, 0.5 + 0.25 * repeats)):  # an answer sent again: hotter
            reply = await editor.ask(view, refusal, shorter)
        messages.extend(view[seen:])
        if reply is None:
            continue
        if not written:
            content = asked_file(reply) or ""
            repeats += content == sent_before
            retry = (f"That is the answer you sent last, refused the same way: write a different one. {again}"
                     if content == sent_before else again)
            sent_before = content
            if asked is not None:
                try:
                    core = parent.functions[key].source
                    filled = fill(asked, core, content)
                    if (text := copied(content, messages[1].content, core)) is not None:
                        raise ValueError(f"your function matches text copied from the task ({text[:80]!r}); it "
                                         f"must work for any {' and any '.join(asked.params)}, not for the examples")
                    content = filled
                except ValueError as exc:
                    refusal = str(exc)
                    tell(f"Refused: {refusal}. {retry}")
                    continue
            result = workspace.run({"tool": "write", "path": f"{key}.py", "content": content})
            if activated and not result.startswith("error:"):
                result = workspace.run({"tool": "activate", "module": request.module, "names": activated})
            refusal = result.removeprefix("error: ") if result.startswith("error:") else \
                editor.code_refusal(workspace, parent) or await editor.reply_refusal(workspace, parent, request)
            if refusal:
                tell(f"Refused: {refusal}. {retry}")
                continue
            written = True
            tell(DESCRIBE)
            continue
        description = reply.strip().strip("`").strip().strip('"').strip()
        if problem := description_problem(description, editor.rules):
            refusal = problem
            tell(f"Refused: {problem}. {DESCRIBE}")
            continue
        refusal = editor.finish(workspace, parent, request, staging_dir, description)
        if not refusal:
            return Proposal.build(request.module, request.parent_dir, staging_dir, description,
                                  request.direction.summary, request.direction.tasks)
        written = False  # the generation does not load: the file again
        tell(f"Refused: {refusal}. {again}")
    return f"the editor did not finish within {editor.max_turns} turns" + (f" (last refusal: {refusal})"
                                                                          if refusal else "")
