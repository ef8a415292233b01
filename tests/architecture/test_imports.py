"""The import arrows of ``src/modularrsi`` point one way (docs/layout.md):
``cli → evolve → rollouts → harness → models``; ``tasks`` sits on ``models``, ``sandbox`` and
``engines`` only, and ``sandbox`` and ``engines`` on nothing; ``report`` reads the run files through
evolve's and rollouts' models; ``util`` is the floor everyone may stand on; ``offline`` (the simulated
world, fakes and stand-ins) is a wing that no other package imports: the production path reaches it
only by name (``util/wing.py``). Every import counts, a lazy one inside a function too, and no two
modules import each other, directly or round a circle."""

from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path

SRC = Path(__file__).resolve().parents[2] / "src" / "modularrsi"
FLOOR = {"modularrsi", "util"}
#: package → the packages it may import (besides the floor and itself)
ALLOWED = {
    "cli": {"evolve", "rollouts", "report", "tasks", "harness", "models", "sandbox", "engines"},
    "report": {"evolve", "rollouts"},
    "evolve": {"rollouts", "harness", "models", "tasks"},
    "rollouts": {"harness", "models", "tasks"},
    "harness": {"models"},
    "tasks": {"models", "sandbox", "engines"},
    "models": set(),
    "sandbox": set(),
    "engines": set(),
    "util": set(),
    "offline": {"report", "evolve", "rollouts", "harness", "models", "tasks"},  # a wing: nothing imports it
    "modularrsi": set(),
}


def module_name(path: Path) -> str:
    parts = list(path.relative_to(SRC.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def package_of(module: str) -> str:
    """The layer of a module: its first-level package (``cli`` holds every command module)."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "modularrsi"


def imports() -> dict[str, set[str]]:
    """module → the modularrsi modules it imports (the longest existing module of each import)."""
    modules = {module_name(p): p for p in SRC.rglob("*.py")}
    out: dict[str, set[str]] = defaultdict(set)
    for name, path in modules.items():
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                targets = [f"{node.module}.{a.name}" for a in node.names]  # a submodule, else its package
            else:
                continue
            for target in targets:
                if target.startswith("modularrsi"):
                    while target not in modules and "." in target:
                        target = target.rsplit(".", 1)[0]
                    if target != name:
                        out[name].add(target)
    return out


def test_every_import_arrow_points_down():
    wrong = sorted(f"{src} → {dst} ({package_of(src)} may not import {package_of(dst)})"
                   for src, targets in imports().items() for dst in targets
                   if package_of(dst) != package_of(src)
                   and package_of(dst) not in ALLOWED[package_of(src)] | FLOOR)
    assert not wrong, "\n".join(wrong)


def test_no_circle_between_packages_or_modules():
    graph = imports()
    packages: dict[str, set[str]] = defaultdict(set)
    for src, targets in graph.items():
        packages[package_of(src)] |= {package_of(t) for t in targets} - {package_of(src)}
    for name, edges in (("packages", packages), ("modules", graph)):
        assert not find_cycle(edges), f"a circle between {name}: {' → '.join(find_cycle(edges))}"


def find_cycle(graph: dict[str, set[str]]) -> list[str]:
    """One cycle of ``graph`` as a path that returns to its start, or [] when there is none."""
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    path: list[str] = []

    def visit(node: str) -> list[str]:
        state[node] = 1
        path.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                return path[path.index(nxt):] + [nxt]
            if nxt not in state and (found := visit(nxt)):
                return found
        path.pop()
        state[node] = 2
        return []

    for start in sorted(graph):
        if start not in state and (found := visit(start)):
            return found
    return []


def test_no_package_reaches_into_another_packages_private_names():
    reaches = []
    for path in SRC.rglob("*.py"):
        name = module_name(path)
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.level == 0 and (node.module or "").startswith("modularrsi"):
                private = [a.name for a in node.names if a.name.startswith("_") and not a.name.endswith("__")]
                if private and package_of(node.module) != package_of(name):
                    reaches.append(f"{name}: from {node.module} import {', '.join(private)}")
    assert not reaches, "\n".join(reaches)


def test_the_offline_world_is_reached_only_by_name():
    reached = sorted(f"{src} → {dst}" for src, targets in imports().items() for dst in targets
                     if package_of(dst) == "offline" and package_of(src) != "offline")
    assert not reached, "\n".join(reached)
