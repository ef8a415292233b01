"""The LLM editor's workspace: the module files it may touch and an active list per module, edited in memory
by its tool calls (``list``, ``read``, ``search``, ``write``, ``edit``, ``activate``); each call is answered
with one line of text - what it did, or ``error: ...`` saying what was wrong with it.
(:class:`~modularrsi.evolve.editor.LLMEditor` runs the loop and writes the staging generation.)"""

from __future__ import annotations

import ast
import re
from pathlib import Path
from typing import Any

from modularrsi.evolve.gates.constructs import ConstructRules, construct_problems
from modularrsi.evolve.source_repair import repaired, same_code
from modularrsi.harness.checks import declarations
from modularrsi.harness.library import GenerationError, check_active, check_contract, check_source, read_sources
from modularrsi.harness.protocols import MODULES
from modularrsi.util.jsontypes import Unvalidated

__all__ = ["Workspace"]


class ToolMisuse(ValueError):
    """A tool call that cannot be carried out (bad path, module, pattern, names; text not found)."""


class Workspace:
    """The editor's view: the module files it may touch, an active list per module, edits in memory."""

    def __init__(self, sources: dict[str, str], active: dict[str, list[str]], modules: list[str], limit: int):
        self.sources, self.active, self.modules, self.limit = dict(sources), active, modules, limit
        self.parent_files = set(sources)  # what a write replaces is the parent's file, not one written here
        self.edited: set[str] = set()

    def changed(self, parent) -> bool:
        return self.sources != read_sources(parent) or self.active != parent.default_active()

    def changes_code(self, parent) -> bool:
        """Whether the change is more than comments, docstrings and layout: a file added or removed, the active
        lists, or a file whose code differs (a file that does not parse counts as changed: the checks say why)."""
        before = read_sources(parent)
        if set(self.sources) != set(before) or self.active != parent.default_active():
            return True
        return not all(same_code(self.sources[key], before[key]) for key in self.sources)

    def refusal(self, rules: ConstructRules | None = None) -> str:
        """The first static refusal of an edited file (the allowlist, its declarations and contract, then banned
        constructs), or ""."""
        for key in sorted(self.edited):
            path = f"{key}.py"
            try:
                tree = check_source(path, self.sources[key])
                check_contract(Path(path), key.split("/")[0], declarations(Path(path), tree))
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
            raise ToolMisuse(f"path '{text}' is not <module>/<name>.py")
        if match[1] not in self.modules:
            raise ToolMisuse(f"{text}: outside the modules you may change ({', '.join(self.modules)})")
        return f"{match[1]}/{match[2]}"

    def run(self, action: Unvalidated) -> str:
        try:
            return self._run(action)
        except ToolMisuse as exc:
            return f"error: {exc}"

    def _run(self, action: Unvalidated) -> str:
        tool = action["tool"]
        if tool == "list":
            return "\n".join(f"{k}.py{' (active)' if k.split('/')[1] in self.active.get(k.split('/')[0], []) else ''}"
                             for k in sorted(self.sources) if k.split("/")[0] in self.modules)
        if tool == "read":
            key = self._key(action.get("path"))
            if key not in self.sources:
                raise ToolMisuse(f"{key}.py does not exist")
            return self.sources[key][: self.limit]
        if tool == "search":
            try:
                pattern = re.compile(str(action.get("pattern", "")))
            except re.error as exc:
                raise ToolMisuse(f"bad pattern: {exc}") from None
            hits = [f"{k}.py:{n}: {line.strip()}" for k, text in sorted(self.sources.items())
                    if k.split("/")[0] in self.modules for n, line in enumerate(text.splitlines(), 1)
                    if pattern.search(line)]
            return "\n".join(hits[:50]) or "no match"
        if tool == "write":
            key = self._key(action.get("path"))
            if not str(action.get("content", "")).strip():
                raise ToolMisuse(f"write {key}.py carried no file content: send the whole file with it")
            existed, before = key in self.parent_files, self.sources.get(key)
            self.sources[key] = str(action.get("content", ""))
            self.edited.add(key)
            if self.sources[key] == before:  # a small model copies the file it was shown over itself
                return f"wrote {key}.py: the same text it held already, so nothing changed"
            replaced = " in place of the existing file (a new mechanism goes in a new file)" if existed else ""
            return f"wrote {key}.py ({len(self.sources[key])} chars){replaced}{self._parsed(key)}"
        if tool == "edit":
            key = self._key(action.get("path"))
            old, new = str(action.get("old", "")), str(action.get("new", ""))
            text = self.sources.get(key, "")
            if not old or text.count(old) != 1:
                raise ToolMisuse(f"'old' must occur exactly once in {key}.py (found {text.count(old) if old else 0}"
                                  "; read the file and copy the text exactly)")
            self.sources[key] = text.replace(old, new)
            self.edited.add(key)
            return f"edited {key}.py{self._parsed(key)}"
        if tool == "activate":
            return self._activate(str(action.get("module", "")), action.get("names"))
        raise ToolMisuse(f"unknown tool '{tool}'")

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
            raise ToolMisuse(f"module '{module}' is not one you may change ({', '.join(self.modules)})")
        if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
            raise ToolMisuse("names must be a list of function names")
        missing = [n for n in names if f"{module}/{n}" not in self.sources]
        if missing:
            raise ToolMisuse(f"no function {module}/{missing[0]}")
        trial = {**self.active, module: list(names)}
        try:
            check_active(Path("manifest.json"), trial, _roles(self.sources, trial))
        except GenerationError as exc:
            raise ToolMisuse(str(exc)) from None
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
