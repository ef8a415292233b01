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
  ``edit``, ``activate``, ``done``; one call per reply: a JSON object asked for by JSON schema where the
  endpoint takes one, or in the ``blocks`` format a JSON header with the code in fenced blocks after it;
  what it is told and how a reply is read is :mod:`modularrsi.evolve.editor_prompt`) over the module's
  files only. Its first message shows the active files of the modules it may change, so it need not spend
  turns finding them. It is told the import
  allowlist and the module contracts; a ``done`` whose files the static checks refuse (the allowlist,
  banned constructs, the contract, a generation that does not load) or that changed nothing is answered
  with the refusal, and the editor repairs it within the same turn budget. A misused tool gets an error
  line back; a ``write`` or ``edit`` is answered with whether the file parses, and line breaks a model put
  inside one-line strings (JSON's ``\\n`` for Python's) are read as escapes (:mod:`~modularrsi.evolve.source_repair`).
  A failed call sent again unchanged is answered with its error and a line saying so, and a ``done`` whose
  change is comments or layout alone (the same syntax trees), or whose description the review's pre-screen
  would refuse (too short, no causal chain), is refused back to the editor.
  Running out of turns, or a failed model call, is an :class:`EditorError` naming the last refusal.
"""

from __future__ import annotations

import ast
import json
import re
from contextlib import nullcontext
from pathlib import Path
from typing import Any, Protocol

from pydantic import BaseModel, ConfigDict, Field

from modularrsi.evolve.editor_prompt import (
    ACTION_SCHEMA,
    SYSTEM,
    EditFormat,
    example_file,
    read_action,
    tools_text,
    what_to_do,
)
from modularrsi.evolve.findings import Direction
from modularrsi.evolve.gates.constructs import ConstructRules, construct_problems
from modularrsi.evolve.gates.prescreen import PrescreenRules, description_problem
from modularrsi.evolve.gates.review import redact
from modularrsi.evolve.history import Brief
from modularrsi.evolve.proposal import Proposal
from modularrsi.evolve.source_repair import repaired, same_code
from modularrsi.harness.checks import ALLOWED_IMPORTS, ALLOWED_STDLIB
from modularrsi.harness.library import (
    Generation,
    GenerationError,
    check_active,
    check_source,
    load_generation,
    read_sources,
    write_generation,
)
from modularrsi.harness.protocols import CONTRACTS, MODULES, contract
from modularrsi.models.base import BudgetExceeded, ChatModel, Message, ModelError
from modularrsi.models.structured import response_schema
from modularrsi.util.jsontypes import Unvalidated

__all__ = ["ACTION_SCHEMA", "EditRequest", "Editor", "EditorError", "LLMEditor"]


class EditorError(ValueError):
    """A proposal that cannot be made (unknown mechanism, wrong module, no change, staging exists, the
    editor model failed or did not finish)."""


class EditRequest(BaseModel):
    """What the editor may know. ``modules``: the files it may touch (one module when locked)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    direction: Direction
    parent_dir: Path
    modules: list[str] = Field(description="Modules whose files the editor may change.")
    excerpts: list[str] = Field(default_factory=list, description="Trajectory excerpts of the findings.")
    history: list[Brief] = Field(default_factory=list, description="Evolution History entries of "
                                          "the module's functions (earlier changes and what became of them).")
    attempt: int = Field(default=0, description="Candidate slot for this direction (varies seeded choices).")
    avoid: list[str] = Field(default_factory=list, description="Files other candidates of this direction wrote: "
                             "write a different mechanism.")

    @property
    def module(self) -> str:
        return self.direction.module


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
                f"Evolution History of this module:\n{history}\n\n"
                + (f"Other candidates for this direction already wrote {', '.join(request.avoid)}: write a "
                   "different mechanism.\n\n" if request.avoid else "")
                + f"{self._shown(request)}{what_to_do(d.module)}")
        user = redact(user, d.tasks)  # reward-blind and task-blind: outcome lines and task names masked
        imports = ", ".join([*sorted(ALLOWED_STDLIB), *ALLOWED_IMPORTS])
        return [Message("system", SYSTEM.format(modules=", ".join(request.modules), contracts=contracts,
                                                imports=imports, example=example_file(d.module),
                                                tools=tools_text(self.form)),
                        purpose="editor_system"),
                Message("user", user, purpose="editor_task")]

    def _shown(self, request: EditRequest) -> str:
        """The active files of the modules the editor may change, within ``max_read_chars`` in all."""
        parent = load_generation(request.parent_dir)
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
        workspace = _Workspace(read_sources(parent), parent.default_active(), request.modules, self.max_read_chars)
        messages = self.prompt(request)
        refusal, last = "", ("", "")
        for _ in range(self.max_turns):
            try:
                with response_schema("editor_action", ACTION_SCHEMA) if self.form == "json" else nullcontext():
                    reply = (await self.model.complete(messages)).content
            except BudgetExceeded:
                raise  # the run stops and resumes here; not a failed edit
            except ModelError as exc:
                raise EditorError(f"editor model failed: {type(exc).__name__}: {exc}" + _last(refusal)) from None
            messages.append(Message("assistant", reply, purpose="editor_reply"))
            action = read_action(reply, self.form)
            if action is None:
                messages.append(Message("user", "Not a JSON object with a 'tool' field; answer with one.",
                                        purpose="parse_error_feedback"))
                continue
            if action.get("tool") != "done":
                call, result = json.dumps(action, sort_keys=True), workspace.run(action)
                repeated, last = (call, result) == last and _failed(result), (call, result)
                if repeated:  # a small model retries a failed call unchanged, to the turn limit
                    result += ("\nThat is the same call as your last one and it failed the same way: change it "
                               "(read the file to copy its exact text, or write the whole file).")
                messages.append(Message("user", result, purpose="tool_result"))
                continue
            description = str(action.get("description", "")).strip() or request.direction.summary
            refusal = self._finish(workspace, parent, request, staging_dir, description)
            if not refusal:
                return Proposal.build(request.module, request.parent_dir, staging_dir, description,
                                      request.direction.summary, request.direction.tasks)
            messages.append(Message("user", f"Refused: {refusal}. Fix it, then call done again.",
                                    purpose="tool_result"))
        raise EditorError(f"the editor did not finish within {self.max_turns} turns" + _last(refusal))

    def _finish(self, workspace: _Workspace, parent: Generation, request: EditRequest, staging_dir: Path,
                description: str) -> str:
        """Write the staging generation; the refusal (one line) when the static checks, the review's check of
        a description (:func:`~modularrsi.evolve.gates.prescreen.description_problem`) or loading refuse it."""
        if not workspace.changed(parent):
            return "the editor finished without changing anything"
        if not workspace.changes_code(parent):
            return "the change is comments or layout only, so the harness would behave as before: change the code"
        problem = workspace.refusal()
        if problem:
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


class _Workspace:
    """The editor's view: the module files it may touch, an active list per module, edits in memory."""

    def __init__(self, sources: dict[str, str], active: dict[str, list[str]], modules: list[str], limit: int):
        self.sources, self.active, self.modules, self.limit = dict(sources), active, modules, limit
        self.parent_files = set(sources)  # what a write replaces is the parent's file, not one written here
        self.edited: set[str] = set()

    def changed(self, parent) -> bool:
        return self.sources != read_sources(parent) or self.active != parent.default_active()

    def changes_code(self, parent) -> bool:
        """Whether the change is more than comments and layout: a file added or removed, the active lists, or
        a file whose syntax tree differs (a file that does not parse counts as changed: the checks say why)."""
        before = read_sources(parent)
        if set(self.sources) != set(before) or self.active != parent.default_active():
            return True
        return not all(same_code(self.sources[key], before[key]) for key in self.sources)

    def refusal(self, rules: ConstructRules | None = None) -> str:
        """The first static refusal of an edited file (the allowlist, then banned constructs), or ""."""
        for key in sorted(self.edited):
            path = f"{key}.py"
            try:
                tree = check_source(path, self.sources[key])
            except GenerationError as exc:
                return str(exc)
            problems = construct_problems(tree, rules or ConstructRules())
            if problems:
                line, problem = problems[0]
                return f"{path}:{line}: {problem}"
        return ""

    def _key(self, path: Any) -> str:
        text = str(path or "").strip().removeprefix("modules/")
        match = re.fullmatch(r"([a-z_]+)/([A-Za-z_][A-Za-z0-9_]*)\.py", text)
        if match is None:
            raise EditorError(f"path '{text}' is not <module>/<name>.py")
        if match[1] not in self.modules:
            raise EditorError(f"{text}: outside the modules you may change ({', '.join(self.modules)})")
        return f"{match[1]}/{match[2]}"

    def run(self, action: Unvalidated) -> str:
        try:
            return self._run(action)
        except EditorError as exc:
            return f"error: {exc}"

    def _run(self, action: Unvalidated) -> str:
        tool = action["tool"]
        if tool == "list":
            return "\n".join(f"{k}.py{' (active)' if k.split('/')[1] in self.active.get(k.split('/')[0], []) else ''}"
                             for k in sorted(self.sources) if k.split("/")[0] in self.modules)
        if tool == "read":
            key = self._key(action.get("path"))
            if key not in self.sources:
                raise EditorError(f"{key}.py does not exist")
            return self.sources[key][: self.limit]
        if tool == "search":
            try:
                pattern = re.compile(str(action.get("pattern", "")))
            except re.error as exc:
                raise EditorError(f"bad pattern: {exc}") from None
            hits = [f"{k}.py:{n}: {line.strip()}" for k, text in sorted(self.sources.items())
                    if k.split("/")[0] in self.modules for n, line in enumerate(text.splitlines(), 1)
                    if pattern.search(line)]
            return "\n".join(hits[:50]) or "no match"
        if tool == "write":
            key = self._key(action.get("path"))
            existed = key in self.parent_files
            self.sources[key] = str(action.get("content", ""))
            self.edited.add(key)
            replaced = " in place of the existing file (a new mechanism goes in a new file)" if existed else ""
            return f"wrote {key}.py ({len(self.sources[key])} chars){replaced}{self._parsed(key)}"
        if tool == "edit":
            key = self._key(action.get("path"))
            old, new = str(action.get("old", "")), str(action.get("new", ""))
            text = self.sources.get(key, "")
            if not old or text.count(old) != 1:
                raise EditorError(f"'old' must occur exactly once in {key}.py (found {text.count(old) if old else 0}"
                                  "; read the file and copy the text exactly)")
            self.sources[key] = text.replace(old, new)
            self.edited.add(key)
            return f"edited {key}.py{self._parsed(key)}"
        if tool == "activate":
            return self._activate(str(action.get("module", "")), action.get("names"))
        raise EditorError(f"unknown tool '{tool}'")

    def _parsed(self, key: str) -> str:
        """What a written file's syntax needs said: line breaks inside one-line strings read as ``\\n``
        (:mod:`~modularrsi.evolve.source_repair`), or the syntax error to fix before ``done``."""
        fixed = repaired(self.sources[key])
        if fixed is not None:
            self.sources[key] = fixed
            return "; the line breaks inside its one-line strings were read as \\n escapes (now it parses)"
        try:
            ast.parse(self.sources[key])
        except SyntaxError as exc:
            return f"; it does not parse: line {exc.lineno}: {exc.msg} - fix it before done"
        return ""

    def _activate(self, module: str, names: Any) -> str:
        if module not in self.modules or module not in MODULES:
            raise EditorError(f"module '{module}' is not one you may change ({', '.join(self.modules)})")
        if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
            raise EditorError("names must be a list of function names")
        missing = [n for n in names if f"{module}/{n}" not in self.sources]
        if missing:
            raise EditorError(f"no function {module}/{missing[0]}")
        trial = {**self.active, module: list(names)}
        try:
            check_active(Path("manifest.json"), trial, _roles(self.sources, trial))
        except GenerationError as exc:
            raise EditorError(str(exc)) from None
        self.active = trial
        return f"active {module}: {', '.join(names)}"


def _roles(sources: dict[str, str], active: dict[str, list[str]]):
    """Minimal stand-ins carrying each active function's role, for :func:`check_active`."""
    from types import SimpleNamespace

    out = {}
    for module, names in active.items():
        for name in names:
            match = re.search(r"^ROLE\s*=\s*['\"](\w+)['\"]", sources.get(f"{module}/{name}", ""), re.M)
            out[f"{module}/{name}"] = SimpleNamespace(role=match[1] if match else "additive")
    return out
