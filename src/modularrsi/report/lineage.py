"""The lineage of functions across an evolution run's generations (parents, merges, retirements).

Generations are read in the order the run makes them: ``start``, each lane's ``gen_<n>`` (n ≥ 1),
``integration/combined``, an accepted integration revert (``integration/resolve/*/staging``),
``merged`` and ``frozen``. A *function version* is one (module/name, sha256, merge lineage); it is born
in the first generation holding it. Its parents are (a) the declared lineage of its manifest entry —
``module/name`` in the generation's parent, or ``<generation id>:module/name`` for Function Merge — and
(b) the version of the same function in the parent generation when it differs (an edit, or a merge
that folded another function into it: same code, new lineage, so a new version born in the merge).
Status against the last generation (``frozen``): active, inactive (present, not active), continued
(same code lives on as a later version) or retired — why, from the Evolution History (``fate``) when
a change names its file, else "replaced" (a newer version exists) or "dropped".
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from modularrsi.evolve.history import Change
from modularrsi.evolve.runfiles import GenerationManifest
from modularrsi.report.files import read_model


@dataclass
class GenerationView:
    label: str
    path: str
    id: str
    parents: list[str]
    created_by: str
    functions: dict[str, str]  # "module/name" -> sha256
    active: dict[str, list[str]]
    stage: int = 0


@dataclass
class FunctionNode:
    key: str
    sha: str
    born: str  # label of the first generation holding it
    stage: int
    parents: list[str] = field(default_factory=list)  # node ids
    status: str = "active"  # active | inactive | continued | retired
    note: str = ""
    merged_from: bool = False

    @property
    def id(self) -> str:
        return f"{self.key}@{self.sha[:10]}{'+merge' if self.merged_from else ''}"

    @property
    def module(self) -> str:
        return self.key.split("/")[0]


@dataclass
class Lineage:
    generations: list[GenerationView]
    functions: list[FunctionNode]
    stages: list[str]


def _gen_number(path: Path) -> int:
    match = re.fullmatch(r"gen_(\d+)", path.name)
    return int(match.group(1)) if match else -1


def _generation_dirs(run_dir: Path) -> list[tuple[str, str, Path]]:
    """(stage name, label, directory) in the order the run makes them."""
    out = [("start", "start", run_dir / "start")]
    lanes = run_dir / "lanes"
    for lane in sorted(lanes.iterdir()) if lanes.is_dir() else []:
        for gen in sorted((g for g in lane.glob("gen_*") if _gen_number(g) > 0), key=_gen_number):
            out.append((f"epoch {_gen_number(gen)}", f"{lane.name}/{gen.name}", gen))
    out.append(("integration", "integration/combined", run_dir / "integration" / "combined"))
    for staging in sorted((run_dir / "integration" / "resolve").glob("*/staging")):
        out.append(("integration", f"integration/{staging.parent.name}", staging))
    out += [("merge", "merged", run_dir / "merged"), ("frozen", "frozen", run_dir / "frozen")]
    return [entry for entry in out if (entry[2] / "manifest.json").is_file()]


def _load(label: str, path: Path, run_dir: Path) -> GenerationView | None:
    manifest = read_model(path / "manifest.json", GenerationManifest)
    if manifest is None or not manifest.id:
        return None
    return GenerationView(label=label, path=str(path.relative_to(run_dir)), id=manifest.id,
                          parents=list(manifest.parents), created_by=manifest.created_by,
                          functions={key: entry.sha256 for key, entry in manifest.entries().items()},
                          active=manifest.active)


def _declared(run_dir: Path, gen: GenerationView) -> dict[str, list[str]]:
    manifest = read_model(run_dir / gen.path / "manifest.json", GenerationManifest) or GenerationManifest()
    return {key: list(entry.parents) for key, entry in manifest.entries().items()}


def gather_lineage(run_dir: Path, changes: list[Change]) -> Lineage | None:
    """The function lineage of ``run_dir`` (None when it has no generation yet)."""
    stages: list[str] = []
    generations: list[GenerationView] = []
    for stage, label, path in _generation_dirs(run_dir):
        gen = _load(label, path, run_dir)
        if gen is None:
            continue
        if stage not in stages:
            stages.append(stage)
        gen.stage = stages.index(stage)
        generations.append(gen)
    if not generations:
        return None
    by_id: dict[str, int] = {}
    placed: list[dict[str, FunctionNode]] = []  # per generation: the node of each of its functions
    nodes: dict[tuple, FunctionNode] = {}
    for index, gen in enumerate(generations):
        parents = [placed[by_id[p]] for p in gen.parents if p in by_id] or _previous(generations, placed, index)
        declared = _declared(run_dir, gen)
        here: dict[str, FunctionNode] = {}
        for key, sha in sorted(gen.functions.items()):
            merges = tuple(sorted(r for r in declared.get(key, []) if ":" in r))
            ident = (key, sha, merges)
            if ident not in nodes:
                nodes[ident] = _node(gen, key, sha, declared.get(key, []), parents, placed, by_id)
            here[key] = nodes[ident]
        placed.append(here)
        by_id.setdefault(gen.id, index)
    _statuses(list(nodes.values()), placed[-1], generations[-1], changes)
    used = sorted({n.stage for n in nodes.values()})
    for node in nodes.values():
        node.stage = used.index(node.stage)
    return Lineage(generations=generations, functions=list(nodes.values()), stages=[stages[i] for i in used])


def _node(gen: GenerationView, key: str, sha: str, refs: list[str], parents: list[dict[str, FunctionNode]],
          placed: list[dict[str, FunctionNode]], by_id: dict[str, int]) -> FunctionNode:
    node = FunctionNode(key=key, sha=sha, born=gen.label, stage=gen.stage, merged_from=any(":" in r for r in refs))
    for ref in refs:
        if ":" in ref:
            gen_id, other = ref.split(":", 1)
            source = placed[by_id[gen_id]] if gen_id in by_id else {}
        else:
            other, source = ref, next((p for p in parents if ref in p), {})
        if other in source:
            node.parents.append(source[other].id)
    for parent in parents:
        if key in parent:
            node.parents.append(parent[key].id)
    node.parents = [p for p in dict.fromkeys(node.parents) if p != node.id]
    return node


def _previous(generations: list[GenerationView], placed: list[dict[str, FunctionNode]], index: int
              ) -> list[dict[str, FunctionNode]]:
    """The generation a manifest without known parents grew from: the lane's previous one, else start."""
    lane = generations[index].label.split("/")[0]
    for earlier in range(index - 1, -1, -1):
        if generations[earlier].label.split("/")[0] == lane:
            return [placed[earlier]]
    return [placed[0]] if index else []


def _statuses(nodes: list[FunctionNode], last_nodes: dict[str, FunctionNode], last: GenerationView,
              changes: list[Change]) -> None:
    fates = {}
    for change in changes:
        if change.outcome == "promoted" and change.fate != "kept":
            for file in change.files:
                if file.endswith(".py"):
                    fates[f"{Path(file).parent.name}/{Path(file).stem}"] = change.fate
    final_active = {f"{m}/{n}" for m, names in last.active.items() for n in names}
    for node in nodes:
        final = last_nodes.get(node.key)
        if final is node:
            node.status = "active" if node.key in final_active else "inactive"
            node.note = "" if node.status == "active" else f"in {last.label}, not active"
        elif final is not None and final.sha == node.sha:
            node.status, node.note = "continued", f"lives on as the version born in {final.born}"
        else:
            node.status = "retired"
            node.note = fates.get(node.key) or ("replaced by a newer version" if final else "dropped")
