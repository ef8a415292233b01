"""The static checks every function file passes before anything runs it: an allowlist, the cheap
first line (the wall is the confined runtime that executes function code).

A function file may:
- import only the modules in :data:`ALLOWED_STDLIB` (pure computation: no files, processes,
  network, clocks, threads, loaders or interpreter internals) and :data:`ALLOWED_IMPORTS` (the
  harness contracts, the kernel's resources and Harbor's reply parsers), never ``*`` or relatively;
- never name a builtin of :data:`FORBIDDEN_BUILTINS`, whether it calls it or not (``rd = open`` is
  refused as surely as ``open(...)``);
- never use an attribute that starts with ``_`` (``ctx.model._model``, ``x.__class__``), nor one of
  :data:`HOST_HANDLES` (names that lead from a documented object to the host);
- never hide an attribute lookup in a format string (``"{0._model}".format(ctx.model)``);
- look resources up by a literal name from :data:`modularrsi.harness.resources.TEMPLATES`.

Declarations (``MODULE``, ``ROLE``, ``DESCRIPTION``, ``PARAMETERS``) are literal top-level
assignments and the contract's callables are top-level ``def``/``async def``: :func:`declarations`
reads both from the syntax tree, so a generation is validated without executing any of its code.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from pathlib import Path

from modularrsi.harness.protocols import DECLARED
from modularrsi.harness.resources import TEMPLATES
from modularrsi.util.errors import UserError
from modularrsi.util.jsontypes import Options

#: Standard-library modules a function may import (top-level name and its submodules).
ALLOWED_STDLIB = frozenset({
    "__future__", "abc", "base64", "binascii", "bisect", "collections", "copy", "dataclasses", "datetime",
    "decimal", "difflib", "enum", "fnmatch", "fractions", "functools", "hashlib", "heapq", "html",
    "itertools", "json", "keyword", "math", "numbers", "random", "re", "shlex", "statistics", "struct",
    "textwrap", "typing", "unicodedata", "zlib",
})
#: Non-stdlib modules the kernel lends to functions (exact dotted names).
ALLOWED_IMPORTS = ("modularrsi.harness.protocols", "modularrsi.harness.resources",
                   "harbor.agents.terminus_2.terminus_json_plain_parser",
                   "harbor.agents.terminus_2.terminus_xml_plain_parser")
#: Builtins that reach files, code, frames or attributes by name, or build objects from a type
#: taken off a value: refused wherever they are named (names starting with ``__`` are refused too).
FORBIDDEN_BUILTINS = frozenset({
    "open", "exec", "eval", "compile", "__import__", "breakpoint", "globals", "locals", "vars", "dir",
    "getattr", "setattr", "delattr", "hasattr", "input", "help", "exit", "quit", "type", "memoryview",
})
#: Public attribute names that lead to the host (Harbor's environment, run directories) or evaluate
#: strings as code; none of them is part of the documented Ctx / LoopAPI surface.
HOST_HANDLES = frozenset({
    "environment", "environment_dir", "trial_paths", "logs_dir", "upload_dir", "upload_file", "download_dir",
    "download_file", "get_type_hints", "ForwardRef", "make_dataclass", "kernel", "gi_frame", "cr_frame",
    "ag_frame", "tb_frame", "f_globals", "f_locals", "f_back", "f_builtins", "co_code",
})
RESOURCE_FUNCTIONS = ("terminus_template",)
#: A format-string field that looks an attribute up: ``{0.x}``, ``{name.attr}``, ``{0[1].x}``.
FORMAT_ATTRIBUTE = re.compile(r"\{[A-Za-z0-9_\[\]]*\.[A-Za-z_]")


class GenerationError(UserError):
    """A generation that cannot be loaded: names the file and the problem."""


class SourceRefused(GenerationError):
    """A function file that fails a static check: ``file:line: problem``."""


def import_allowed(name: str) -> bool:
    return name in ALLOWED_IMPORTS or name.split(".")[0] in ALLOWED_STDLIB


def _import_problem(node: ast.AST) -> str | None:
    if isinstance(node, ast.ImportFrom):
        if node.level:
            return "relative import (functions import by absolute name only)"
        if any(a.name == "*" for a in node.names):
            return f"'from {node.module} import *' (import names explicitly)"
        hidden = [a.name for a in node.names if a.name.startswith("_") or a.name in HOST_HANDLES]
        if hidden:
            return f"forbidden import '{hidden[0]}' from {node.module} (private, or it leads outside the Ctx surface)"
        names = [node.module or ""]
    elif isinstance(node, ast.Import):
        names = [a.name for a in node.names]
    else:
        return None
    for name in names:
        if not import_allowed(name):
            return (f"forbidden import '{name}' (functions may import {', '.join(sorted(ALLOWED_STDLIB))} "
                    f"and {', '.join(ALLOWED_IMPORTS)})")
    return None


def _resource_problem(node: ast.Call) -> str | None:
    func = node.func
    name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else None
    if name not in RESOURCE_FUNCTIONS:
        return None
    if node.keywords or len(node.args) > 1:
        return f"{name}() takes at most one literal template name"
    if not node.args:
        return None
    arg = node.args[0]
    if not (isinstance(arg, ast.Constant) and arg.value in TEMPLATES):
        return f"{name}() must name one of {', '.join(sorted(TEMPLATES))} literally"
    return None


def _node_problem(node: ast.AST) -> str | None:
    problem = _import_problem(node)
    if problem:
        return problem
    if isinstance(node, ast.Name) and node.id in FORBIDDEN_BUILTINS:
        return f"forbidden name '{node.id}' (it reaches files, code or attributes by name)"
    if isinstance(node, ast.Attribute):
        if node.attr.startswith("_"):
            return f"forbidden attribute '.{node.attr}' (names starting with '_' are private to the kernel)"
        if node.attr in HOST_HANDLES:
            return f"forbidden attribute '.{node.attr}' (it leads outside the Ctx / LoopAPI surface)"
    if isinstance(node, ast.Name) and node.id.startswith("__") and node.id not in ("__name__", "__doc__"):
        return f"forbidden name '{node.id}' (interpreter internals are off limits)"
    if isinstance(node, ast.Call):
        return _resource_problem(node)
    if isinstance(node, ast.Constant) and isinstance(node.value, str) and FORMAT_ATTRIBUTE.search(node.value):
        return "format string looks up an attribute ('{x.attr}'); format explicit values instead"
    return None


def check_source(path: Path | str, source: str) -> ast.Module:
    """Parse ``source`` and refuse it (:class:`SourceRefused`) at the first construct not allowed."""
    try:
        tree = ast.parse(source, filename=str(path))
    except SyntaxError as exc:
        raise SourceRefused(f"{path}:{exc.lineno}: syntax error: {exc.msg}") from None
    for node in ast.walk(tree):
        problem = _node_problem(node)
        if problem:
            raise SourceRefused(f"{path}:{getattr(node, 'lineno', 0)}: {problem}")
    return tree


@dataclass(frozen=True)
class Declarations:
    """What a function file declares, read from its syntax tree."""

    values: Options
    callables: dict[str, bool]  # top-level def name -> is it ``async def``


def declarations(path: Path | str, tree: ast.Module) -> Declarations:
    """Literal top-level declarations and top-level callables (no code is executed)."""
    values: Options = {}
    callables: dict[str, bool] = {}
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            callables[node.name] = isinstance(node, ast.AsyncFunctionDef)
            continue
        targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(
            node, ast.AnnAssign) and node.value is not None else []
        for target in targets:
            if isinstance(target, ast.Name) and target.id in DECLARED:
                try:
                    values[target.id] = ast.literal_eval(node.value)
                except ValueError:
                    raise SourceRefused(f"{path}:{node.lineno}: {target.id} must be a literal value") from None
            elif isinstance(target, ast.Name):
                callables.pop(target.id, None)  # rebinding a def hides it from the contract
    return Declarations(values, callables)
