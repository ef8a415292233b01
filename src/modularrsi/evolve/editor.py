"""The Code-Modify agent (editor role): turns one direction into a staging generation.

An editor gets an :class:`EditRequest` — the direction, its findings with trajectory excerpts, the
Evolution History of the module's functions, the parent generation — and writes a *new* staging
generation (the parent is only read). It never sees rewards, tests, solutions or, when the change is
locked, other modules' files. It returns a :class:`~modularrsi.evolve.proposal.Proposal` whose diff is
computed from the two directories, or raises :class:`EditorError` saying why it could not edit.

- :class:`~modularrsi.offline.sim_editor.SimEditorRole` — offline (reached by name, see
  :mod:`modularrsi.evolve.roles`): writes the catalogue mechanism whose text fits the request best,
  with its seeded share of deliberately bad patches.
- :class:`LLMEditor` — any ChatModel in a small tool loop (``list``, ``read``, ``search``, ``write``,
  ``edit``, ``activate``, ``done``) over the module's files only (:mod:`~modularrsi.evolve.editor_workspace`).
  A call is a JSON object asked for by JSON schema where the endpoint takes one (one per reply), or in the
  ``blocks`` format a JSON line with the code in fenced blocks after it (several per reply, run in order up
  to the first that fails; a ``write`` that ends at its JSON line is answered by asking for the file, which
  the next reply sends); what the editor is told and how a reply is read is
  :mod:`~modularrsi.evolve.editor_prompt`. Its first message shows the active files of the modules it may
  change, so it need not spend turns finding them. It is told the import allowlist and the module contracts.
  What is answered back within the same turn budget, so a small model can repair it: a misused tool (an
  error line); whether a written file parses (line breaks a model put inside one-line strings - JSON's
  ``\\n`` for Python's - are read as escapes, :mod:`~modularrsi.evolve.source_repair`); a call sent
  again unchanged, or a write of the text a file held (a line saying so); a reply cut off at the output
  limit; and a ``done`` the checks refuse -
  the static ones (the allowlist, banned constructs, the contract, a generation that does not load), a
  change of nothing or of comments, docstrings and layout alone (the same code), or a description the review's
  pre-screen would refuse (too short, no causal chain); and a Tool Use edit whose ``parse`` reads a recorded
  reply differently or, for a direction about parsing, reads none of the refused ones
  (:mod:`~modularrsi.evolve.reply_cases`; the editor is shown those replies). Running out of turns, or a failed
  model call, is an :class:`EditorError` naming the last refusal. However the edit ends, its conversation is
  kept beside the staging directory (:data:`TRANSCRIPT`; ``gates/<d>-<try>/editor.jsonl`` in an epoch).
"""

from __future__ import annotations

import json
from contextlib import nullcontext
from pathlib import Path
from typing import Protocol

from modularrsi.evolve.edit_request import EditRequest
from modularrsi.evolve.editor_guided import closing, guided_edit, hole, target
from modularrsi.evolve.editor_prompt import (
    ACTION_SCHEMA,
    FENCE,
    SYSTEM,
    EditFormat,
    asked_file,
    example_file,
    read_actions,
    tools_text,
    what_to_do,
)
from modularrsi.evolve.editor_workspace import Workspace
from modularrsi.evolve.gates.prescreen import PrescreenRules, description_problem
from modularrsi.evolve.gates.review import redact
from modularrsi.evolve.proposal import Proposal
from modularrsi.evolve.reply_cases import (
    SHOWN_TO,
    about_parsing,
    about_refusals,
    check_edited,
    check_history,
    replies_text,
)
from modularrsi.harness.checks import ALLOWED_IMPORTS, ALLOWED_STDLIB
from modularrsi.harness.library import (
    Generation,
    GenerationError,
    load_generation,
    read_sources,
    write_generation,
)
from modularrsi.harness.protocols import CONTRACTS, contract
from modularrsi.models.base import BudgetExceeded, ChatModel, Message, ModelError, OutputTruncated
from modularrsi.models.structured import response_schema
from modularrsi.util.files import write_text

__all__ = ["ACTION_SCHEMA", "TRANSCRIPT", "EditRequest", "Editor", "EditorError", "LLMEditor"]

#: The LLM editor's conversation, one JSON line per message, beside the staging directory it was given.
TRANSCRIPT = "editor.jsonl"


class EditorError(ValueError):
    """A proposal that cannot be made (unknown mechanism, wrong module, no change, staging exists, the
    editor model failed or did not finish)."""


class Editor(Protocol):
    name: str

    async def edit(self, request: EditRequest, staging_dir: Path) -> Proposal: ...


# ---------------------------------------------------------------------------------------------- LLM editor
class LLMEditor:
    """A tool-using editor over any :class:`ChatModel`; at most ``max_turns`` replies per edit."""

    def __init__(self, model: ChatModel, max_turns: int = 16, max_read_chars: int = 12_000,
                 form: EditFormat = "json", rules: PrescreenRules | None = None):
        self.model, self.max_turns, self.max_read_chars, self.form = model, max_turns, max_read_chars, form
        self.rules = rules or PrescreenRules()  # the review gate's, so a description it refuses outright is fixed here
        self.name = f"llm-editor:{model.name}"

    def prompt(self, request: EditRequest) -> list[Message]:
        contracts = "\n".join(f"  {m} {role}: " + "; ".join(contract(c).signature().replace("``", "") for c in calls)
                              for (m, role), calls in CONTRACTS.items() if m in request.modules)
        d = request.direction
        findings = "\n".join(f"- {f.divergence} | suggested: {f.suggested_change}" for f in d.findings[:8])
        briefs = [json.dumps(h.model_dump(mode="json"), sort_keys=True)[:300] for h in request.history[-10:]]
        history = "\n".join(f"- {b}" for b in briefs) or "- none"
        excerpts = "\n".join(request.excerpts[:6]) or "(none)"
        user = (f"Direction ({d.module}, mechanism '{d.mechanism}', supported by {d.raw_support} tasks):\n"
                f"{d.summary}\n\nFindings:\n{findings}\n\nTrajectory excerpts:\n{excerpts}\n\n"
                + (replies_text(request.replies) if set(SHOWN_TO) & set(request.modules) else "") +
                f"Evolution History of this module:\n{history}\n\n"
                + (f"Other candidates for this direction already wrote {', '.join(request.avoid)}: write a "
                   "different mechanism.\n\n" if request.avoid else "")
                + f"{self._shown(request)}"
                + (closing(request, load_generation(request.parent_dir)) if self.form == "guided" else
                   what_to_do(d.module)))
        user = redact(user, d.tasks)  # reward-blind and task-blind: outcome lines and task names masked
        imports = ", ".join([*sorted(ALLOWED_STDLIB), *ALLOWED_IMPORTS])
        return [Message("system", SYSTEM.format(modules=", ".join(request.modules), contracts=contracts,
                                                imports=imports, example=example_file(d.module),
                                                tools=tools_text(self.form)),
                        purpose="editor_system"),
                Message("user", user, purpose="editor_task")]

    def _shown(self, request: EditRequest) -> str:
        """The active files of the modules the editor may change, within ``max_read_chars`` in all (in the guided
        format with a function to write, the core callable it runs before)."""
        parent = load_generation(request.parent_dir)
        if self.form == "guided" and (asked := hole(request, parent)) is not None:
            return asked.shown(parent.functions[target(request, parent)[0]].source)
        sources, active, room, shown = read_sources(parent), parent.default_active(), self.max_read_chars, []
        for module in request.modules:
            for name in active.get(module, []):
                text = sources.get(f"{module}/{name}", "")
                if len(text) > room:
                    shown.append(f"### {module}/{name}.py (active; not shown: read it)")
                    continue
                room -= len(text)
                shown.append(f"### {module}/{name}.py (active)\n{text.rstrip()}")
        return "The active files you may change:\n\n" + "\n\n".join(shown) + "\n\n" if shown else ""

    async def edit(self, request: EditRequest, staging_dir: Path) -> Proposal:
        if staging_dir.exists():
            raise EditorError(f"{staging_dir}: exists already (staging generations are never overwritten)")
        parent = load_generation(request.parent_dir)
        workspace = Workspace(read_sources(parent), parent.default_active(), request.modules, self.max_read_chars)
        messages = self.prompt(request)
        try:
            if self.form == "guided":
                outcome = await guided_edit(self, request, parent, workspace, messages, staging_dir)
                if isinstance(outcome, str):
                    raise EditorError(outcome)
                return outcome
            return await self._converse(request, parent, workspace, messages, staging_dir)
        finally:  # what the editor was told and answered, beside its staging copy, however the edit ended
            write_text(staging_dir.parent / TRANSCRIPT, "".join(json.dumps(
                {"role": m.role, "purpose": m.purpose, "content": m.content}) + "\n" for m in messages))

    async def _converse(self, request: EditRequest, parent: Generation, workspace: Workspace,
                        messages: list[Message], staging_dir: Path) -> Proposal:
        refusal, last = "", ("", "")
        pending = ""  # blocks format: a write that came without its file, which is asked for next
        for _ in range(self.max_turns):
            reply = await self.ask(messages, refusal, "send fewer calls per message")
            if reply is None:
                continue
            content = asked_file(reply) if pending else None
            actions = [{"tool": "write", "path": pending, "content": content}] if content is not None \
                else read_actions(reply, self.form)
            pending = ""
            if not actions:
                messages.append(Message("user", "Not a JSON object with a 'tool' field; answer with one.",
                                        purpose="parse_error_feedback"))
                continue
            results: list[str] = []
            for action in actions:  # in order; after a failed call the rest are not run
                if action.get("tool") == "done":
                    description = str(action.get("description", "")).strip() or request.direction.summary
                    refusal = (await self.reply_refusal(workspace, parent, request)
                               or self.finish(workspace, parent, request, staging_dir, description))
                    if not refusal:
                        return Proposal.build(request.module, request.parent_dir, staging_dir, description,
                                              request.direction.summary, request.direction.tasks)
                    results.append(f"Refused: {refusal}. Fix it, then call done again.")
                    break
                if self.form == "blocks" and action.get("tool") == "write" and "content" not in action:
                    pending = str(action.get("path", ""))  # a small model often ends its message at the JSON
                    results.append(f"Now send the whole file {pending} in one {FENCE}python block, nothing else.")
                    break
                call, result = json.dumps(action, sort_keys=True), workspace.run(action)
                repeated, last = (call, result) == last, (call, result)
                if repeated and _failed(result):  # a small model retries a failed call unchanged, to the turn limit
                    result += ("\nThat is the same call as your last one and it failed the same way: change it "
                               "(read the file to copy its exact text, or write the whole file).")
                elif repeated:
                    result += ("\nThat is the same call as your last one, with the same result: making it again "
                               "changes nothing. Take the next step of the task instead.")
                results.append(result)
                if _failed(result):
                    break
            if len(results) < len(actions):
                results.append(f"({len(actions) - len(results)} later call(s) in your message not run)")
            messages.append(Message("user", "\n".join(results), purpose="tool_result"))
        raise EditorError(f"the editor did not finish within {self.max_turns} turns" + _last(refusal))

    async def ask(self, messages: list[Message], refusal: str, shorter: str) -> str | None:
        """The model's next reply, appended to ``messages``; None for a reply cut off at the output limit (a turn
        spent: the model hears why, and ``shorter`` what to do). A failed call is an :class:`EditorError`."""
        try:
            with response_schema("editor_action", ACTION_SCHEMA) if self.form == "json" else nullcontext():
                reply = (await self.model.complete(messages)).content
        except BudgetExceeded:
            raise  # the run stops and resumes here; not a failed edit
        except OutputTruncated as exc:  # a small model dumps whole plans
            messages += [Message("assistant", exc.content, purpose="editor_reply"),
                         Message("user", f"Your message was cut off at the output limit and nothing in it was used: "
                                 f"{shorter}.", purpose="parse_error_feedback")]
            return None
        except ModelError as exc:
            raise EditorError(f"editor model failed: {type(exc).__name__}: {exc}" + _last(refusal)) from None
        messages.append(Message("assistant", reply, purpose="editor_reply"))
        return reply

    def code_refusal(self, workspace: Workspace, parent: Generation) -> str:
        """Why the workspace's change cannot be finished as code (one line), or ""."""
        if not workspace.changed(parent):
            return "the editor finished without changing anything"
        if not workspace.changes_code(parent):
            return ("the change is comments, docstrings or layout only, so the harness would behave as before: "
                    "change the code")
        return workspace.refusal()

    async def reply_refusal(self, workspace: Workspace, parent: Generation, request: EditRequest) -> str:
        """An edited Tool Use parser against the agent model's recorded replies (:mod:`~modularrsi.evolve.reply_cases`):
        why it is refused (it breaks a read reply; or, for a direction about parsing, reads no refused one), or "".
        An edited Context core, for a direction about refused replies, on histories ending in a recorded reply
        (:func:`~modularrsi.evolve.reply_cases.check_history`)."""
        edited = [f"context/{n}" for n in workspace.active.get("context", [])]
        history = next((key for key in edited if key in workspace.edited), None)
        if history is not None and request.replies and about_refusals(request.direction):
            try:
                return await check_history(history, workspace.sources[history], request.replies)
            except GenerationError:
                return ""  # the static checks say why (finish)
        active = workspace.active.get("tool_use", [])
        key = next((f"tool_use/{n}" for n in active if f"tool_use/{n}" in workspace.edited), None)
        old = next((parent.functions[f"tool_use/{n}"] for n in parent.default_active().get("tool_use", [])
                    if parent.functions[f"tool_use/{n}"].role == "core"), None)
        if key is None or old is None or not request.replies:
            return ""  # the parser is not edited, or there is nothing to check it on
        try:
            check = await check_edited(old, key, workspace.sources[key], request.replies)
        except GenerationError:
            return ""  # the static checks say why (finish)
        return check.refusal(demand_fix=about_parsing(request.direction))

    def finish(self, workspace: Workspace, parent: Generation, request: EditRequest, staging_dir: Path,
                description: str) -> str:
        """Write the staging generation; the refusal (one line) when the static checks, the review's check of
        a description (:func:`~modularrsi.evolve.gates.prescreen.description_problem`) or loading refuse it."""
        if problem := self.code_refusal(workspace, parent):
            return problem
        if problem := description_problem(description, self.rules):
            return (f"the description: {problem} - say what the runs showed, what in the harness caused it, "
                    "and how the change leads to different behaviour")
        lineage = {key: [f"{parent.id}:{key}"] for key in workspace.edited if key in parent.functions}
        try:
            write_generation(staging_dir, workspace.sources, workspace.active, [parent.id],
                             f"{self.name}: {request.direction.id}", lineage=lineage)
        except GenerationError as exc:  # nothing is written; the message names the file
            return f"the edited generation does not load: {exc}"
        return ""


def _failed(result: str) -> bool:
    return result.startswith("error:") or "it does not parse" in result


def _last(refusal: str) -> str:
    return f" (last refusal: {refusal})" if refusal else ""
