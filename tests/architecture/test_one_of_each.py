"""One of each at the edges: a bubblewrap command line is built in one place (``util/bwrap.py``), the
five module names are declared once (``harness/protocols.py``), and each of the names below is defined
by one module of ``src/modularrsi`` only."""

from __future__ import annotations

import ast
from pathlib import Path

SRC = Path(__file__).resolve().parents[2] / "src" / "modularrsi"
#: Ideas that once had two declarations, each to stay with one.
ONCE = ("BASELINE", "PerTask", "run_trial", "stamp", "LimitReached", "DECLARED", "ModelSettings", "TrialSettings",
        "Module", "CONTRACT_TABLE", "bwrap_argv")
#: Flags only a bubblewrap command line has.
BWRAP_FLAGS = ("--unshare-pid", "--die-with-parent", "--clearenv", "--new-session")


def trees() -> dict[str, ast.Module]:
    return {str(p.relative_to(SRC)): ast.parse(p.read_text()) for p in sorted(SRC.rglob("*.py"))}


def defined(tree: ast.Module) -> set[str]:
    names = set()
    for node in tree.body:
        if isinstance(node, ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            names.add(node.name)
        elif isinstance(node, ast.Assign | ast.AnnAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names |= {t.id for t in targets if isinstance(t, ast.Name)}
    return names


def test_each_idea_is_defined_once():
    where = {name: [path for path, tree in trees().items() if name in defined(tree)] for name in ONCE}
    assert {name: paths for name, paths in where.items() if len(paths) != 1} == {}


def test_bubblewrap_command_lines_come_from_one_builder():
    found = sorted({path for path, tree in trees().items() for node in ast.walk(tree)
                    if isinstance(node, ast.Constant) and node.value in BWRAP_FLAGS})
    assert found == ["util/bwrap.py"]


def test_the_module_names_are_declared_once():
    modules = {"agent_loop", "tool_use", "observation", "context", "completion"}
    found = sorted({path for path, tree in trees().items() for node in ast.walk(tree)
                    if isinstance(node, ast.Subscript) and getattr(node.value, "id", None) == "Literal"
                    and modules <= {c.value for c in ast.walk(node.slice) if isinstance(c, ast.Constant)}})
    assert found == ["harness/protocols.py"]
