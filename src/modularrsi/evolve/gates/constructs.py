"""Banned constructs beyond ``harness.checks.check_source`` (the allowlist every function file passes
on load): what a function could still use to reach outside the context object, or to read the
task's grading material.

``check_source`` already allows only named side-effect-free imports, refuses dangerous builtins
wherever they are named (``getattr``, ``open``, ``type`` …), every attribute starting with ``_``
and attribute lookups hidden in format strings. This module adds, per function file:

- attributes that do file/process/network work whatever object they hang off (``.open``,
  ``.read_text``, ``.system``, ``.popen``, ``.create_subprocess_exec``, ``.urlopen`` …).
  ``ctx.terminal.exec`` is *not* banned: the terminal is the sanctioned way out;
- string constants (docstrings excepted) that mention grading material: ``/tests``, ``/solution``,
  ``solve.sh``, ``reward``, ``/logs/verifier``, ``test_outputs`` (case-insensitive substrings).

Known limit: a string assembled at run time (``"/te" + "sts"``) evades the constant check; the
function runtime's confinement (no task, tests or solution files), the reward-blind review and the
execution gate are the next lines of defence.
"""

from __future__ import annotations

import ast

from pydantic import BaseModel, ConfigDict, Field

FORBIDDEN_STRINGS = ("/tests", "/solution", "solve.sh", "reward", "/logs/verifier", "test_outputs")
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


class ConstructRules(BaseModel):
    """What the static gate refuses on top of ``harness.checks.check_source`` (each list replaceable)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    forbidden_strings: tuple[str, ...] = Field(default=FORBIDDEN_STRINGS,
                                               description="Substrings (case-insensitive) no string constant "
                                                           "may contain; docstrings are exempt.")
    forbidden_attributes: tuple[str, ...] = Field(default=FORBIDDEN_ATTRIBUTES,
                                                  description="Attribute names a function may not use.")


def _docstring_nodes(tree: ast.Module) -> set[int]:
    ids = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and isinstance(
                    first.value.value, str):
                ids.add(id(first.value))
    return ids


def _string_problem(value: str, rules: ConstructRules) -> str | None:
    lowered = value.lower()
    for needle in rules.forbidden_strings:
        if needle.lower() in lowered:
            return f"string constant mentions '{needle}' (grading material is off limits)"
    return None


def _node_problem(node: ast.AST, rules: ConstructRules, docstrings: set[int]) -> str | None:
    if isinstance(node, ast.Attribute) and node.attr in rules.forbidden_attributes:
        return f"forbidden attribute '.{node.attr}' (file, process or network access outside ctx.terminal)"
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
