"""Banned constructs beyond ``library.check_source``: what a function could use to reach outside the
context object (files, processes, network, introspection) or to read the task's grading material.

``library.check_source`` already refuses banned imports (os, subprocess, socket, …), calls of
``open/exec/eval/compile/__import__/…`` and dunder attributes. This module adds, per function file:

- imports of further standard-library modules that read or write files, spawn processes or reach
  frames (zipfile, tarfile, linecache, logging, inspect, concurrent, …);
- attributes that do file/process/network work whatever object they hang off (``.open``,
  ``.read_text``, ``.system``, ``.popen``, ``.create_subprocess_exec``, ``.urlopen``, frame attributes
  ``.f_globals`` …). ``ctx.terminal.exec`` is *not* banned: the terminal is the sanctioned way out;
- names that expose the interpreter (``__builtins__``, ``__loader__``, ``__spec__``), ``input()``,
  and ``getattr/setattr/delattr`` with a non-literal or banned attribute name;
- string constants (docstrings excepted) that mention grading material: ``/tests``, ``/solution``,
  ``solve.sh``, ``reward``, ``/logs/verifier``, ``test_outputs`` (case-insensitive substrings).

Known limit: a string assembled at run time (``"/te" + "sts"``) evades the constant check; the
reward-blind review and the execution gate are the next lines of defence.
"""

from __future__ import annotations

import ast

from pydantic import BaseModel, ConfigDict, Field

FORBIDDEN_STRINGS = ("/tests", "/solution", "solve.sh", "reward", "/logs/verifier", "test_outputs")
FORBIDDEN_MODULES = (
    "zipfile", "tarfile", "gzip", "bz2", "lzma", "linecache", "fileinput", "filecmp", "dbm", "shelve",
    "mmap", "logging", "concurrent", "configparser", "netrc", "mailbox", "inspect", "platform", "select",
    "selectors", "site", "sysconfig", "pkgutil", "modulefinder", "py_compile", "compileall", "zipapp",
    "trace", "tracemalloc", "pdb", "bdb", "faulthandler", "imaplib", "poplib", "nntplib", "ftplib",
    "mimetypes", "venv", "ensurepip", "atexit", "weakref", "types", "ctypes",
)
FORBIDDEN_ATTRIBUTES = (
    "open", "read_text", "read_bytes", "write_text", "write_bytes", "unlink", "rmtree", "listdir", "scandir",
    "iterdir", "makedirs", "chmod", "chown", "symlink_to", "system", "popen", "Popen", "fork", "forkpty",
    "execv", "execve", "execvp", "execvpe", "execl", "execle", "execlp", "spawnv", "spawnve", "posix_spawn",
    "kill", "killpg", "check_output", "check_call", "getoutput", "getstatusoutput", "create_subprocess_exec",
    "create_subprocess_shell", "subprocess_exec", "subprocess_shell", "open_connection", "open_unix_connection",
    "start_server", "start_unix_server", "create_connection", "create_datagram_endpoint", "getaddrinfo",
    "gethostbyname", "urlopen", "urlretrieve", "load_module", "exec_module", "f_globals", "f_locals",
    "f_back", "f_builtins", "gi_frame", "cr_frame", "ag_frame", "tb_frame", "co_code",
)
FORBIDDEN_NAMES = ("__builtins__", "__loader__", "__spec__", "__file__", "__cached__")
FORBIDDEN_CALLS = ("input",)
ATTRIBUTE_BUILTINS = ("getattr", "setattr", "delattr", "hasattr")


class ConstructRules(BaseModel):
    """What the static gate refuses on top of ``library.check_source`` (each list replaceable)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    forbidden_strings: tuple[str, ...] = Field(default=FORBIDDEN_STRINGS,
                                               description="Substrings (case-insensitive) no string constant "
                                                           "may contain; docstrings are exempt.")
    forbidden_modules: tuple[str, ...] = Field(default=FORBIDDEN_MODULES,
                                               description="Further modules (top-level names) a function may "
                                                           "not import.")
    forbidden_attributes: tuple[str, ...] = Field(default=FORBIDDEN_ATTRIBUTES,
                                                  description="Attribute names a function may not use.")
    forbidden_names: tuple[str, ...] = Field(default=FORBIDDEN_NAMES, description="Names a function may not use.")
    forbidden_calls: tuple[str, ...] = Field(default=FORBIDDEN_CALLS, description="Builtins a function may not call.")


def _docstring_nodes(tree: ast.Module) -> set[int]:
    ids = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and isinstance(
                    first.value.value, str):
                ids.add(id(first.value))
    return ids


def _imported(node: ast.AST) -> list[str]:
    if isinstance(node, ast.Import):
        return [a.name for a in node.names]
    if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
        return [node.module]
    return []


def _attribute_builtin(node: ast.Call, rules: ConstructRules) -> str | None:
    if len(node.args) < 2:
        return None
    name = node.args[1]
    if not (isinstance(name, ast.Constant) and isinstance(name.value, str)):
        return f"{node.func.id}() with a computed attribute name"
    if name.value in rules.forbidden_attributes or name.value.startswith("__"):
        return f"{node.func.id}() of forbidden attribute '{name.value}'"
    return None


def _string_problem(value: str, rules: ConstructRules) -> str | None:
    lowered = value.lower()
    for needle in rules.forbidden_strings:
        if needle.lower() in lowered:
            return f"string constant mentions '{needle}' (grading material is off limits)"
    return None


def _node_problem(node: ast.AST, rules: ConstructRules, docstrings: set[int]) -> str | None:
    for name in _imported(node):
        if name.split(".")[0] in rules.forbidden_modules:
            return f"forbidden import '{name}' (reaches files, processes or frames)"
    if isinstance(node, ast.Attribute) and node.attr in rules.forbidden_attributes:
        return f"forbidden attribute '.{node.attr}' (file, process or network access outside ctx.terminal)"
    if isinstance(node, ast.Name) and node.id in rules.forbidden_names:
        return f"forbidden name '{node.id}'"
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
        if node.func.id in rules.forbidden_calls:
            return f"forbidden call '{node.func.id}()'"
        if node.func.id in ATTRIBUTE_BUILTINS:
            return _attribute_builtin(node, rules)
    if isinstance(node, ast.Constant) and id(node) not in docstrings:
        value = node.value
        if isinstance(value, bytes):
            value = value.decode("utf-8", errors="replace")
        if isinstance(value, str):
            return _string_problem(value, rules)
    return None


def construct_problems(tree: ast.Module, rules: ConstructRules) -> list[tuple[int, str]]:
    """``(line, problem)`` for every banned construct in ``tree``, in source order."""
    docstrings = _docstring_nodes(tree)
    problems = []
    for node in ast.walk(tree):
        problem = _node_problem(node, rules, docstrings)
        if problem:
            problems.append((getattr(node, "lineno", 0), problem))
    return sorted(problems)
