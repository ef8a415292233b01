"""Operations on whole generations that integration and freezing need (plain file work, no model).

- :func:`combine` — one library from several lanes: module M's functions and active list come from
  the lane that evolved M, every other module from the starting generation.
- :func:`revert_module` — a generation with one module put back as another generation has it (how
  an integration conflict is resolved when a lane's change does not survive the combination).
- :func:`near_duplicates` / :func:`merge_functions` — Function Merge: functions of one module whose
  normalised code is nearly the same become one; the survivor's lineage names the merged function.
- :func:`copy_generation` — a sealed copy (lives in ``harness.library``, which ``generation new`` shares).

Every function writes a new generation with ``library.write_generation`` (sealed, content-hashed,
validated on load) and only reads its inputs.
"""

from __future__ import annotations

import ast
import difflib
from pathlib import Path

from pydantic import BaseModel, ConfigDict

from modularrsi.harness.library import Generation, load_generation, parts, read_sources, write_generation
from modularrsi.harness.library import copy_generation as copy_generation  # re-exported: lanes, start, freeze
from modularrsi.harness.protocols import MODULES


def combine(start_dir: Path, lanes: dict[str, Path], target: Path, created_by: str) -> Generation:
    """The start generation with each module in ``lanes`` ({module: lane generation dir}) taken over."""
    start = load_generation(start_dir)
    sources, active, lineage = parts(start)
    parents = [start.id]
    for module, lane_dir in sorted(lanes.items()):
        lane = load_generation(lane_dir)
        lane_sources, lane_active, lane_lineage = parts(lane)
        sources = {k: v for k, v in sources.items() if not k.startswith(f"{module}/")}
        sources.update({k: v for k, v in lane_sources.items() if k.startswith(f"{module}/")})
        lineage.update({k: v for k, v in lane_lineage.items() if k.startswith(f"{module}/")})
        active[module] = lane_active[module]
        if lane.id not in parents:
            parents.append(lane.id)
    return write_generation(target, sources, active, parents, created_by, lineage)


def revert_module(generation_dir: Path, reference_dir: Path, module: str, target: Path,
                  created_by: str) -> Generation:
    """``generation_dir`` with ``module``'s files and active list as in ``reference_dir``."""
    gen, ref = load_generation(generation_dir), load_generation(reference_dir)
    sources, active, lineage = parts(gen)
    ref_sources, ref_active, ref_lineage = parts(ref)
    sources = {k: v for k, v in sources.items() if not k.startswith(f"{module}/")}
    sources.update({k: v for k, v in ref_sources.items() if k.startswith(f"{module}/")})
    lineage = {k: v for k, v in lineage.items() if k in sources}
    lineage.update({k: v for k, v in ref_lineage.items() if k.startswith(f"{module}/")})
    active[module] = ref_active[module]
    return write_generation(target, sources, active, [gen.id], created_by, lineage)


class Merge(BaseModel):
    """One Function Merge: ``merged`` folded into ``kept`` (same module and role)."""

    model_config = ConfigDict(frozen=True)

    module: str
    kept: str
    merged: str
    similarity: float


def normalised(source: str) -> str:
    """The code without docstrings, comments and formatting (``ast.unparse`` of the stripped tree)."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return source
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if isinstance(body, list) and body and isinstance(body[0], ast.Expr) \
                and isinstance(body[0].value, ast.Constant) and isinstance(body[0].value.value, str):
            node.body = body[1:] or [ast.Pass()]
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "DESCRIPTION"
                                                for t in node.targets):
            node.value = ast.Constant("")
    return ast.unparse(tree)


def similarity(a: str, b: str) -> float:
    return difflib.SequenceMatcher(None, normalised(a), normalised(b), autojunk=False).ratio()


def near_duplicates(generation: Generation, threshold: float) -> list[Merge]:
    """Pairs of same-module, same-role functions at least ``threshold`` alike; the survivor is the
    active one (or the earlier in active order, or the first by name); each function merges once."""
    sources, active = read_sources(generation), generation.default_active()
    merges: list[Merge] = []
    taken: set[str] = set()
    for module in MODULES:
        order = active.get(module, [])
        keys = sorted((k for k in sources if k.startswith(f"{module}/")),
                      key=lambda k: (order.index(k.split("/")[1]) if k.split("/")[1] in order else len(order), k))
        for i, kept in enumerate(keys):
            for merged in keys[i + 1:]:
                if kept in taken or merged in taken:
                    continue
                if generation.functions[kept].role != generation.functions[merged].role:
                    continue
                score = similarity(sources[kept], sources[merged])
                if score >= threshold:
                    merges.append(Merge(module=module, kept=kept, merged=merged, similarity=round(score, 4)))
                    taken.add(merged)
    return merges


def merge_functions(generation_dir: Path, merges: list[Merge], target: Path, created_by: str) -> Generation:
    """``generation_dir`` with every merged function removed (and dropped from its active list); the kept
    function's lineage gains the merged one."""
    gen = load_generation(generation_dir)
    sources, active, lineage = parts(gen)
    for merge in merges:
        sources.pop(merge.merged)
        name = merge.merged.split("/")[1]
        active[merge.module] = [n for n in active.get(merge.module, []) if n != name]
        lineage[merge.kept] = sorted({*lineage.get(merge.kept, []), f"{gen.id}:{merge.merged}",
                                      *lineage.pop(merge.merged, [])})
    return write_generation(target, sources, active, [gen.id], created_by, lineage)


def changed_modules(generation_dir: Path, reference_dir: Path) -> list[str]:
    """Modules whose files or active list differ between two generations."""
    a, b = load_generation(generation_dir), load_generation(reference_dir)
    sa, sb = read_sources(a), read_sources(b)
    out = []
    for module in MODULES:
        mine = {k: v for k, v in sa.items() if k.startswith(f"{module}/")}
        theirs = {k: v for k, v in sb.items() if k.startswith(f"{module}/")}
        if mine != theirs or a.default_active()[module] != b.default_active()[module]:
            out.append(module)
    return out
