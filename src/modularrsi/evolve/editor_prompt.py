"""What the LLM editor is told: the system prompt, the JSON schema of one tool call, the shape of a function
file and the closing instruction (:mod:`modularrsi.evolve.editor` runs the loop)."""

from __future__ import annotations

from modularrsi.harness.protocols import CONTRACTS, contract, type_text
from modularrsi.util.jsontypes import JSONSchema

__all__ = ["ACTION_SCHEMA", "SYSTEM", "example_file", "what_to_do"]

SYSTEM = """You improve one module of an LLM agent harness. The harness is a set of Python function files;
each file declares MODULE, ROLE ("core" or "additive"), DESCRIPTION, PARAMETERS and the callables of its
contract. You may change only these modules: {modules}. Contracts (a "core" function replaces the module's
one core function; "additive" functions are applied in order after it, so a new mechanism is usually an
additive file activated after the existing ones):
{contracts}

A function file looks like this (the names in capitals are required; the callable is the contract's):
{example}

Answer with exactly one JSON object per message, one of:
{{"tool": "list"}}
{{"tool": "read", "path": "<module>/<name>.py"}}
{{"tool": "search", "pattern": "<regex>"}}
{{"tool": "write", "path": "<module>/<name>.py", "content": "<whole file>"}}
{{"tool": "edit", "path": "<module>/<name>.py", "old": "<exact text>", "new": "<replacement>"}}
{{"tool": "activate", "module": "<module>", "names": ["<name>", ...]}}   (the module's active files by name, without
  ".py", in order: keep the existing ones and add yours)
{{"tool": "done", "description": "<one causal account: the behaviour observed in the runs, because of what in
  the harness, and how the change leads to different behaviour>"}}
The change must be generic: no task names, task-specific paths or constants tuned to one case.
Functions may import ONLY these modules: {imports}. Anything else (os, sys, subprocess, pathlib, time,
shutil, io, ...) is refused, and so is naming open, eval, exec, getattr, type or other builtins that reach
files or attributes by name, or any attribute starting with "_". Functions reach the terminal and the
model only through ctx (ctx.terminal, ctx.model, ctx.state, ctx.params, ctx.memo, ctx.history).
When you call done, your files are checked; a refusal comes back with its reason: fix it and call done
again."""


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
