"""The last stages: Function Merge over the integrated library, freeze, and the paired held-out eval.

Each writes one file when done (``merge.json``, ``frozen.json``, ``eval/eval.json``) and reads it back
when resumed.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from modularrsi.evolve import share
from modularrsi.evolve.context import RunContext
from modularrsi.evolve.evaluate import EvalResult, evaluate
from modularrsi.evolve.libraryops import changed_modules, copy_generation, merge_functions, near_duplicates
from modularrsi.evolve.overlap import evolution_tasks, record_evolution_tasks
from modularrsi.evolve.proposal import manifest_id
from modularrsi.evolve.runfiles import FrozenRecord, MergeRecord, read_model, write_model
from modularrsi.evolve.seeds import derived_seed
from modularrsi.harness.library import load_generation
from modularrsi.tasks.manifest import load_manifest
from modularrsi.util.errors import UserError


def merge(evo: RunContext, library: Path) -> Path:
    """Function Merge over the library; returns the merged generation (or the library unchanged)."""
    layout = evo.layout
    if layout.merge.is_file():
        return layout.root / read_model(layout.merge, MergeRecord).library
    merges = near_duplicates(load_generation(library), evo.config.integration.merge_similarity)
    target = library
    if merges:
        target = layout.merged
        if target.exists():
            shutil.rmtree(target)
        merge_functions(library, merges, target, f"function merge of {len(merges)} pair(s)")
        for m in merges:
            for change in evo.history.changes.values():
                if change.outcome == "promoted" and any(f.endswith(f"{m.merged}.py") for f in change.files):
                    evo.history.set_fate(change.id, f"merged into {m.kept}")
    write_model(layout.merge, MergeRecord(library=layout.relative(target), generation=manifest_id(target),
                                          merges=merges))
    return target


def freeze(evo: RunContext, library: Path, start: Path) -> Path:
    """Copy the library to ``frozen/`` (once) and describe it in ``frozen.json``."""
    frozen = evo.layout.frozen
    if not frozen.exists():
        copy_generation(library, frozen, created_by=f"frozen by evolution run {evo.layout.root.name}")
    if evolution_tasks(frozen) is None:
        record_evolution_tasks(frozen, list(evo.task_dirs.values()))
    gen = load_generation(frozen)
    write_model(evo.layout.frozen_record, FrozenRecord(
        generation=gen.id, path="frozen", start=manifest_id(start), changed_modules=changed_modules(frozen, start),
        functions=gen.default_active(), descriptions={k: f.description for k, f in gen.functions.items()}))
    return frozen


async def evaluate_frozen(evo: RunContext, start: Path, frozen: Path) -> EvalResult:
    """The frozen library against the start on ``eval_tasks`` (paired, same seeds)."""
    if evo.layout.eval_result.is_file():
        return read_model(evo.layout.eval_result, EvalResult)
    c = evo.config
    if c.eval_manifest is not None and load_manifest(c.eval_manifest).selection is None:
        raise UserError(f"eval_manifest {c.eval_manifest}: no selection yet; choose the held-out tasks with "
                        f"`modularrsi tasks select`, then continue with --resume {evo.run_dir}")
    template = evo.run_template().model_copy(update={
        "tasks": c.eval_tasks, "manifest": c.eval_manifest, "k": c.eval_k, "seed": derived_seed(c.seed, "eval")})
    share.take_baseline(c, evo.layout.root, evo.layout.eval / "baseline")
    return await evaluate(template, start, frozen, evo.layout.eval, slots=evo.slots, budget_path=evo.layout.budget,
                          checked=True)
