"""What the LLM editor is told and how its replies are read: the system prompt, the tool calls in either
format, the JSON schema of one call, the shape of a function file and the closing instruction
(:mod:`modularrsi.evolve.editor` runs the loop).

Two formats of a tool call (``editor.format``):

- ``json``: the whole call is one JSON object, asked for by JSON schema where the endpoint takes one.
- ``blocks``: a one-line JSON header, and for ``write`` and ``edit`` the code in fenced blocks after it, so
  no code is escaped into a JSON string. A small model escapes poorly: the local 1.5B's files were cut at
  the first ``"`` its code held, and a write it could not repair was retried unchanged to the turn limit.
  No schema is sent in this format (a schema would confine the reply to the JSON).
"""

from __future__ import annotations

import json
import re
from typing import Literal

from modularrsi.harness.protocols import CONTRACTS, contract, type_text
from modularrsi.util.jsontypes import JSONSchema, Unvalidated

__all__ = ["ACTION_SCHEMA", "FENCE", "SYSTEM", "EditFormat", "asked_file", "example_file", "read_actions", "tools_text",
           "what_to_do"]

EditFormat = Literal["json", "blocks", "guided"]

SYSTEM = """You improve one module of an LLM agent harness. The harness is a set of Python function files;
each file declares MODULE, ROLE ("core" or "additive"), DESCRIPTION, PARAMETERS and the callables of its
contract. You may change only these modules: {modules}. Contracts (a "core" function replaces the module's
one core function; "additive" functions are applied in order after it, so a new mechanism is usually an
additive file activated after the existing ones):
{contracts}

A function file looks like this (the names in capitals are required; the callable is the contract's):
{example}

{tools}
The change must be generic: no task names, task-specific paths or constants tuned to one case.
Functions may import ONLY these modules: {imports}. Anything else (os, sys, subprocess, pathlib, time,
shutil, io, ...) is refused, and so is naming open, eval, exec, getattr, type or other builtins that reach
files or attributes by name, or any attribute starting with "_". Functions reach the terminal and the
model only through ctx (ctx.terminal, ctx.model, ctx.state, ctx.params, ctx.memo, ctx.history).
When you call done, your files are checked; a refusal comes back with its reason: fix it and call done
again."""


_CALLS = """{"tool": "list"}
{"tool": "read", "path": "<module>/<name>.py"}
{"tool": "search", "pattern": "<regex>"}
WRITE
EDIT
{"tool": "activate", "module": "<module>", "names": ["<name>", ...]}   (the module's active files by name, without
  ".py", in order: keep the existing ones and add yours)
{"tool": "done", "description": "<one causal account: the behaviour observed in the runs, because of what in
  the harness, and how the change leads to different behaviour>"}"""
FENCE = "`" * 3
_TOOLS = {
    "json": ("Answer with exactly one JSON object per message, one of:", {
        "WRITE": '{"tool": "write", "path": "<module>/<name>.py", "content": "<whole file>"}',
        "EDIT": '{"tool": "edit", "path": "<module>/<name>.py", "old": "<exact text>", "new": "<replacement>"}'}),
    "blocks": ("Answer with tool calls, each a JSON object on a line of its own, one of these:", {
        "WRITE": '{"tool": "write", "path": "<module>/<name>.py"}',
        "EDIT": '{"tool": "edit", "path": "<module>/<name>.py"}'})}
_BLOCKS_HOW = f"""write and edit carry code: put it right AFTER their JSON line in {FENCE}python blocks, never inside
the JSON - for write one block, the whole file; for edit two blocks, the exact text to replace and then
its replacement. A message that writes a file looks like this:
{{"tool": "write", "path": "<module>/<name>.py"}}
{FENCE}python
<the whole file>
{FENCE}
One message may hold several calls: they run in order, and those after a call that fails are not run."""


GUIDED = ("You will be asked for one thing at a time - first the whole file to write, in one python code block, "
          "then a one-sentence description - and the harness does the rest. Answer each with exactly what is asked.")


def tools_text(form: EditFormat) -> str:
    """The system prompt's list of tool calls in format ``form`` (in the guided format, what happens instead)."""
    if form == "guided":
        return GUIDED
    lead, calls = _TOOLS[form]
    text = _CALLS
    for slot, call in calls.items():
        text = text.replace(slot, call)
    return f"{lead}\n{text}" + (f"\n{_BLOCKS_HOW}" if form == "blocks" else "")


def read_actions(text: str, form: EditFormat = "json") -> list[Unvalidated]:
    """The tool calls in a reply. ``json``: the first JSON object naming a tool (the whole reply, a fenced
    block, or from a ``{``). ``blocks``: every such object outside the code blocks, in order, each taking the
    fenced code blocks between it and the next call - a write's content is the first, an edit's old and new
    text the first two (one trailing line break dropped) - where the object lacks those fields."""
    if form != "blocks":
        return [call] if (call := _first_call(text)) is not None else []
    code = [(m.start(), m.end(), m[2]) for m in FENCED.finditer(text)
            if m[1].lower() != "json" and not m[2].lstrip().startswith("{")]
    calls, decoder, at = [], json.JSONDecoder(), 0
    while (brace := text.find("{", at)) >= 0:
        inside = next((end for start, end, _ in code if start <= brace < end), None)
        if inside is not None:
            at = inside
            continue
        try:
            obj, end = decoder.raw_decode(text, brace)
        except ValueError:
            at = brace + 1
            continue
        if isinstance(obj, dict) and isinstance(obj.get("tool"), str):
            calls.append((brace, end, obj))
        at = end
    actions = []
    for i, (_, end, action) in enumerate(calls):
        until = calls[i + 1][0] if i + 1 < len(calls) else len(text)
        blocks = [body for start, _, body in code if end <= start < until]
        if action["tool"] == "write" and "content" not in action and blocks:
            action["content"] = blocks[0]
        if action["tool"] == "edit" and "old" not in action and len(blocks) >= 2:
            action["old"], action["new"] = (b.removesuffix("\n") for b in blocks[:2])
        actions.append(action)
    return actions


FENCED = re.compile(r"```([\w+.-]*)[^\n]*\n(.*?)```", re.S)


def asked_file(text: str) -> str | None:
    """The answer to "send the whole file now" (the ``blocks`` format, after a ``write`` that came without
    one): the reply's first code block, or the reply itself when it holds no block and no tool call."""
    blocks = [m[2] for m in FENCED.finditer(text) if m[1].lower() != "json" and not m[2].lstrip().startswith("{")]
    if blocks:
        return blocks[0]
    return text.strip() + "\n" if text.strip() and not read_actions(text, "blocks") else None


def _call(text: str) -> Unvalidated | None:
    try:
        obj = json.loads(text)
    except ValueError:
        return None
    return obj if isinstance(obj, dict) and isinstance(obj.get("tool"), str) else None


def _first_call(text: str) -> Unvalidated | None:
    for candidate in [text.strip(), *re.findall(r"```(?:json)?\s*(.*?)```", text, re.S)]:
        if (obj := _call(candidate)) is not None:
            return obj
    decoder = json.JSONDecoder()
    for match in re.finditer(r"\{", text):
        try:
            obj = decoder.raw_decode(text, match.start())[0]
        except ValueError:
            continue
        if isinstance(obj, dict) and isinstance(obj.get("tool"), str):
            return obj
    return None


def _tool(name: str, **fields: JSONSchema) -> JSONSchema:
    return {"type": "object", "properties": {"tool": {"type": "string", "enum": [name]}, **fields},
            "required": ["tool", *fields], "additionalProperties": False}


_TEXT: JSONSchema = {"type": "string"}
#: One tool call, as the system prompt lists them (sent as the ``response_format`` of every editor turn).
ACTION_SCHEMA: JSONSchema = {"anyOf": [
    _tool("list"), _tool("read", path=_TEXT), _tool("search", pattern=_TEXT),
    _tool("write", path=_TEXT, content=_TEXT), _tool("edit", path=_TEXT, old=_TEXT, new=_TEXT),
    _tool("activate", module=_TEXT, names={"type": "array", "items": _TEXT}), _tool("done", description=_TEXT)]}


def what_to_do(module: str) -> str:
    """The closing instruction: a new additive file where the module takes one, else an edit of its core."""
    if (module, "additive") in CONTRACTS:
        calls = ", ".join(CONTRACTS[(module, "additive")])
        return (f"Write a NEW additive file {module}/<new_name>.py whose {calls} carries out the suggested change "
                f"(do not copy an existing file), activate it after the module's active files, then call done.")
    return (f"Edit {module}'s core file so that it carries out the suggested change (edit replaces exact text; "
            "write replaces the whole file), then call done.")


def example_file(module: str) -> str:
    """The shape of a function file of ``module`` (its additive role where it has one): declarations and
    the contract's callables, bodies left to the editor."""
    role = "additive" if (module, "additive") in CONTRACTS else "core"
    calls = [contract(name) for name in CONTRACTS[(module, role)]]
    defs = "\n\n\n".join(f"{'async ' if c.is_async else ''}def {c.name}({', '.join(c.params)}):\n"
                          f"    ...  # returns {type_text(c.returns)}" for c in calls)
    return (f'"""<what the function does, in one line>"""\n\nMODULE = "{module}"\nROLE = "{role}"\n'
            f'DESCRIPTION = "<the behaviour it changes, and why>"\nPARAMETERS = {{}}  # settings read as '
            f'ctx.params["name"]\n\n\n{defs}')
