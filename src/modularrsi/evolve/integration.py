"""Integration: combine the lanes' final generations into one library and resolve cross-module conflicts
under the same gates as promotion (static → review → execution).

``integration/result.json`` (:class:`~modularrsi.evolve.runfiles.IntegrationResult`) is written last:
when it exists the stage is read back, not redone. Each conflict resolution attempt keeps its own
the history (``integration/<module>``), so a killed integration resumes at the attempt it was in.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from modularrsi.evolve.context import RunContext
from modularrsi.evolve.gates import run_chain
from modularrsi.evolve.gates.execution import Sample
from modularrsi.evolve.gates.sequential import ExecutionDetails
from modularrsi.evolve.gates.static import StaticConfig, StaticGate, load_in_subprocess
from modularrsi.evolve.history import Change
from modularrsi.evolve.layout import ProposalLayout
from modularrsi.evolve.libraryops import changed_modules, combine, revert_module
from modularrsi.evolve.proposal import Proposal, manifest_id
from modularrsi.evolve.runfiles import Conflict, IntegrationResult, Lane, read_model, write_model
from modularrsi.evolve.seeds import derived_seed
from modularrsi.rollouts.results import RunResults


async def integrate(evo: RunContext, start: Path, lanes: list[Lane], finals: dict[str, Path]) -> Path:
    """Combine the lanes (mode=lanes); resolve conflicts under the gates. Returns the library dir."""
    layout = evo.layout.integration
    if layout.result.is_file():
        return evo.layout.root / read_model(layout.result, IntegrationResult).library
    if evo.config.mode != "lanes":
        (lane,) = lanes
        write_model(layout.result, IntegrationResult(
            library=evo.layout.relative(finals[lane.name]),
            skipped=f"mode={evo.config.mode}: one lane, nothing to combine"))
        return finals[lane.name]
    evolved = {lane.modules[0]: finals[lane.name] for lane in lanes if changed_modules(finals[lane.name], start)}
    combined = layout.combined
    if not combined.exists():
        combine(start, evolved, combined, f"integration of {', '.join(sorted(evolved)) or 'no lane'}")
    loaded = await load_in_subprocess(combined, StaticConfig())
    if isinstance(loaded, str) or not loaded.get("ok"):
        raise RuntimeError(f"{combined}: the combined library does not load: {loaded}")
    result = IntegrationResult(evolved_modules=sorted(evolved), combined=manifest_id(combined), library="")
    library = combined
    if not evo.config.integration.enabled:
        result.skipped = "integration.enabled is false: lanes combined without the conflict check"
    elif len(evolved) == 1:  # the combined library is that lane's own: no other module to conflict with
        result.skipped = f"one module evolved ({next(iter(evolved))}): nothing to conflict with, no run"
    elif evolved:
        seed = derived_seed(evo.config.seed, "integration")
        run, results = await evo.run_generation(combined, seed, sorted(evo.task_dirs))
        conflicts = await find_conflicts(evo, finals, lanes, results, seed)
        result.acc, result.run, result.conflicts = results.overall.acc, evo.layout.relative(run), conflicts
        if len({c.task for c in conflicts}) >= evo.config.integration.conflict_min_tasks:
            library = await resolve(evo, combined, start, conflicts, results, evolved)
    result.library, result.generation = evo.layout.relative(library), manifest_id(library)
    write_model(layout.result, result)
    return library


async def find_conflicts(evo: RunContext, finals: dict[str, Path], lanes: list[Lane], combined: RunResults,
                         seed: int) -> list[Conflict]:
    """Tasks a lane's final generation passes that the combined library never passes: another
    module's change undid that lane's gain. Candidates: every attempt of the lane's latest rollouts
    passed and no attempt of the combined library did; confirmed when the lane's generation, run on
    the candidates with the combined run's seed (same attempt seeds), passes most of its attempts."""
    lost = {t.task for t in combined.per_task if t.passes == 0 and t.attempts - t.invalid > 0}
    out = []
    for lane in lanes:
        final_id = manifest_id(finals[lane.name])
        candidates = sorted(task for task, (passes, valid) in latest_passes(evo, lane.name, final_id).items()
                            if task in lost and valid and passes == valid)
        if not candidates:
            continue
        _, confirm = await evo.run_generation(finals[lane.name], seed, candidates)
        for row in confirm.per_task:
            valid = row.attempts - row.invalid
            if row.task in candidates and valid and 2 * row.passes >= valid:
                out.append(Conflict(task=row.task, lane=lane.name, lane_passes=row.passes, lane_attempts=valid))
    return out


def latest_passes(evo: RunContext, lane: str, generation: str) -> dict[str, tuple[int, int]]:
    """Per task (passes, valid attempts) of ``generation`` in its latest sampled epoch of ``lane``, or
    from the execution gate that promoted it when it was never sampled afterwards."""
    records = [r for r in evo.memory.attempts(lane) if r.generation == generation]
    if records:
        last = max(r.epoch for r in records)
        out: dict[str, tuple[int, int]] = {}
        for r in records:
            if r.epoch == last and r.infra_error is None:
                p, v = out.get(r.task, (0, 0))
                out[r.task] = (p + r.passed, v + 1)
        return out
    for change in evo.history.promoted(lane):
        if change.generation == generation:
            # the confirm's fresh pairs (the last execution verdict), not the screen's replay of failures
            confirm = next((d for g in reversed(change.gates) if (d := ExecutionDetails.of(g))), None)
            return confirm.task_outcomes() if confirm else {}
    return {}


async def resolve(evo: RunContext, combined: Path, start: Path, conflicts: list[Conflict], results: RunResults,
                  evolved: dict[str, Path]) -> Path:
    """Try reverting one evolved module at a time (suspects: modules other than the lanes that lost
    a task, most implicated first); the first revert the gates accept becomes the library."""
    owners = {c.lane for c in conflicts}
    lost = sorted({c.task for c in conflicts})
    suspects = sorted(evolved, key=lambda m: (m in owners, m))
    anchors = sorted(t.task for t in results.per_task if t.passes == t.attempts and t.attempts)[
        : evo.config.gates.anchors]
    sample = Sample(evidence=[evo.task_dirs[t] for t in lost],
                    anchors=[evo.task_dirs[t] for t in anchors if t not in lost])
    for index, module in enumerate(suspects):
        where = evo.layout.integration.revert(index, module)
        change = evo.history.changes.get(f"integration/{module}")  # decided before the run was stopped
        if change is None:
            change = await try_revert(evo, where, combined, start, module, lost, sample)
        if change.outcome == "promoted":
            for promoted in evo.history.promoted(module):
                evo.history.set_fate(promoted.id, "reverted at integration")
            return where.staging
    return combined


async def try_revert(evo: RunContext, where: ProposalLayout, combined: Path, start: Path, module: str,
                     lost: list[str], sample: Sample) -> Change:
    """Revert ``module`` in a staging copy of ``combined`` and put the revert through the gates."""
    if where.staging.exists():
        shutil.rmtree(where.staging)
    where.root.mkdir(parents=True, exist_ok=True)
    revert_module(combined, start, module, where.staging,
                  f"integration: revert {module} (conflict on {len(lost)} task(s))")
    direction = (f"integration conflict: {len(lost)} task(s) passing under another lane fail "
                 f"under the combined library; revert {module}")
    proposal = Proposal.build(module, combined, where.staging,
                              f"Revert {module} to its starting functions, because in the combined "
                              "library its change undoes another module's gain: tasks that lane passed "
                              "fail under the combination, and the revert leads them to pass again.",
                              direction, lost)
    seed = derived_seed(evo.config.seed, "integration")
    gates = [StaticGate(), evo.review_gate(), evo.execution_gate(where, seed).bound(sample)]
    verdicts = await run_chain(gates, proposal)
    change = Change.decided({
        "id": f"integration/{module}", "lane": "integration", "epoch": evo.config.epochs, "module": module,
        "direction": "integration-conflict", "mechanism": "revert", "summary": direction, "tasks": lost,
        "editor": "integration-revert", "description": proposal.description, "parent": manifest_id(combined),
        "generation": manifest_id(where.staging), "files": proposal.changed_files, "diff": proposal.diff},
        verdicts)
    evo.record(where, change)
    return change
