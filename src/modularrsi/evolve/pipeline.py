"""``modularrsi evolve``: lanes of epochs, then integration, Function Merge, freeze and evaluation.

One resumable pipeline of small stages with plain data in between (DESIGN.md, "Data flow")::

    runs/<id>/config.yaml lock.json state.json history.jsonl memory.sqlite budget.json cache.sqlite
              start/                         the starting generation (sealed copy)
              samples/<gen>-s<seed>/         rollouts of one generation at one seed (shared by lanes)
              lanes/<lane>/state.json gen_<n>/
              lanes/<lane>/epoch_<e>/sample.json buckets.json findings.jsonl directions.json outcome.json
              lanes/<lane>/epoch_<e>/gates/<d>-<try>/record.json (+ execution/ runs)
              integration/ merge.json frozen/ frozen.json eval/

A stage whose output file exists is not run again; every file is written atomically and a stage's
output is written only after the stage finished, so a run killed at any point resumes where it stood
and, with the same seed, ends in the same state as an uninterrupted one: the same buckets, findings,
proposals, verdicts, promotions and frozen library (the agent's model calls are seeded per attempt; the
sim analyst, editor and reviewer are deterministic). Step and token counts are the exception in sim:
they include turns spent waiting for a command still running, which depends on the machine's load.

Lanes: ``mode=lanes`` gives one lane per module, each locked to it; ``joint`` one lane holding every
module (each change still locked to its direction's module); ``monolithic`` one lane without the lock.
Lanes run concurrently and share only the attempt concurrency, the budget and the samples of identical
(generation, seed) pairs — every lane starts from the same generation, so epoch 0 is sampled once.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import shutil
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict

from modularrsi.evolve.aggregate import Aggregation, aggregate, evidence_weight
from modularrsi.evolve.analysis import Analyst, LLMAnalyst, SimAnalyst, analyse_all
from modularrsi.evolve.buckets import ALL_PASS, EpochBuckets, in_cooldown, route
from modularrsi.evolve.config import EvolveConfig
from modularrsi.evolve.editor import Editor, EditorError, EditRequest, LLMEditor, SimEditorRole
from modularrsi.evolve.evaluate import EvalResult, evaluate
from modularrsi.evolve.evidence import epoch_evidence
from modularrsi.evolve.findings import Direction, Finding
from modularrsi.evolve.gates import Verdict
from modularrsi.evolve.gates.execution import ExecutionConfig, ExecutionGate, Sample
from modularrsi.evolve.gates.review import ReviewGate
from modularrsi.evolve.gates.static import StaticConfig, StaticGate, load_in_subprocess
from modularrsi.evolve.history import Change, GateRecord, History
from modularrsi.evolve.libraryops import (
    changed_modules,
    combine,
    copy_generation,
    merge_functions,
    near_duplicates,
    revert_module,
)
from modularrsi.evolve.memory import TrajectoryMemory
from modularrsi.evolve.proposal import Proposal, manifest_id
from modularrsi.harness.agent import BASELINE
from modularrsi.harness.library import load_generation
from modularrsi.models.base import BudgetExceeded
from modularrsi.models.registry import make_model
from modularrsi.rollouts.config import RunConfig
from modularrsi.rollouts.results import RunResults
from modularrsi.rollouts.run import execute, resolve_tasks
from modularrsi.rollouts.runner import BudgetStop
from modularrsi.util.files import write_json, write_text, write_yaml

Observer = Callable[[str, dict], None]


class Lane(BaseModel):
    model_config = ConfigDict(frozen=True)
    name: str
    modules: list[str]
    locked: bool = True


def lanes_for(config: EvolveConfig) -> list[Lane]:
    if config.mode == "joint":
        return [Lane(name="joint", modules=list(config.modules))]
    if config.mode == "monolithic":
        return [Lane(name="monolithic", modules=list(config.modules), locked=False)]
    return [Lane(name=m, modules=[m]) for m in config.modules]


def derived_seed(seed: int, *parts: Any) -> int:
    return int(hashlib.sha256(":".join(map(str, (seed, *parts))).encode()).hexdigest()[:8], 16)


def _read(path: Path) -> Any:
    return json.loads(path.read_text())


class Evolution:
    """One evolution run in ``run_dir`` (new or resumed)."""

    def __init__(self, config: EvolveConfig, run_dir: Path, observers: list[Observer] | None = None):
        self.config, self.run_dir = config, run_dir
        self.observers = observers or []
        self.gate = asyncio.Semaphore(config.concurrency)
        self.sample_locks: dict[str, asyncio.Lock] = {}
        self.task_dirs: dict[str, Path] = {}
        self.memory: TrajectoryMemory | None = None
        self.history = History(run_dir / "history.jsonl")

    # ------------------------------------------------------------------ plumbing
    def emit(self, event: str, **data: Any) -> None:
        for observer in self.observers:
            observer(event, data)

    def set_state(self, **fields: Any) -> None:
        path = self.run_dir / "state.json"
        state = _read(path) if path.is_file() else {}
        state.update(fields, updated_at=time.time())
        write_json(path, state)

    def run_template(self) -> RunConfig:
        c = self.config
        return RunConfig(tasks=[], generation=None, model=c.role("agent").model, roles=c.roles, k=c.k,
                         concurrency=c.concurrency, env=c.env, env_kwargs=c.env_kwargs, seed=c.seed,
                         max_turns=c.max_turns, max_tokens=c.max_tokens, max_cost_usd=c.max_cost_usd)

    def _role_model(self, role: str):
        settings = self.config.role(role)
        if settings.model.startswith("sim"):
            return None
        return make_model(settings.model, cache_path=self.run_dir / "cache.sqlite",
                          budget_path=self.run_dir / "budget.json", max_tokens=self.config.max_tokens,
                          max_cost_usd=self.config.max_cost_usd, **settings.kwargs())

    def analyst(self) -> Analyst:
        model = self._role_model("analyst")
        return SimAnalyst(self.config.analyst) if model is None else LLMAnalyst(model)

    def editor(self) -> Editor:
        model = self._role_model("editor")
        if model is None:
            return SimEditorRole(seed=self.config.seed, bad_rate=self.config.editor.bad_rate)
        return LLMEditor(model, max_turns=self.config.editor.max_turns)

    async def run_generation(self, generation: Path, seed: int, tasks: list[str]) -> tuple[Path, RunResults]:
        """Rollouts of ``generation`` on ``tasks`` at ``seed``; one shared directory per (generation, seed)."""
        key = f"{manifest_id(generation)}-s{seed}"
        lock = self.sample_locks.setdefault(key, asyncio.Lock())
        async with lock:
            config = self.run_template().model_copy(update={
                "tasks": [self.task_dirs[t] for t in tasks], "generation": generation, "seed": seed})
            out = self.run_dir / "samples" / key
            results = await execute(config, out, gate=self.gate, budget_path=self.run_dir / "budget.json")
        return out, results

    # ------------------------------------------------------------------ the run
    async def run(self) -> dict[str, Any]:
        """Run (or resume) the evolution. A spending cap reached anywhere stops it with
        :class:`BudgetStop` naming this run directory; the state says ``stopped_budget``."""
        try:
            return await self._run()
        except (BudgetStop, BudgetExceeded) as exc:
            self.set_state(status="stopped_budget", reason=str(exc).split(";")[0])
            raise BudgetStop(f"budget stop: {str(exc).split(';')[0].removeprefix('budget stop: ')}; raise the "
                             f"cap in {self.run_dir / 'config.yaml'} and continue with --resume {self.run_dir}"
                             ) from None

    async def _run(self) -> dict[str, Any]:
        c = self.config
        template = self.run_template().model_copy(update={"tasks": c.tasks, "manifest": c.manifest})
        self.task_dirs = {name: Path(str(task.path)) for name, task in await resolve_tasks(template)}
        if not self.task_dirs:
            raise ValueError(f"no tasks found under {', '.join(map(str, c.tasks))}")
        clash = sorted({p.name for p in _discover(c.eval_tasks)} & set(self.task_dirs)) if c.eval_tasks else []
        if clash:
            raise ValueError(f"eval_tasks overlap the evolution tasks (e.g. {clash[0]}); held-out tasks must be "
                             "disjoint from the tasks evolved on")
        self.run_dir.mkdir(parents=True, exist_ok=True)  # only a run whose tasks resolve gets a directory
        if not (self.run_dir / "config.yaml").exists():
            write_yaml(self.run_dir / "config.yaml", c.dump())
        start = self.run_dir / "start"
        if not start.exists():
            copy_generation(c.generation or BASELINE, start)
        lanes = lanes_for(c)
        write_json(self.run_dir / "lock.json", {
            "mode": c.mode, "contrast": c.contrast, "lanes": [lane.model_dump() for lane in lanes],
            "start": manifest_id(start), "tasks": sorted(self.task_dirs), "seed": c.seed,
            "roles": {r: c.role(r).model for r in ("agent", "analyst", "editor", "reviewer")}})
        self.set_state(status="running", stage="lanes", mode=c.mode, epochs=c.epochs)
        with TrajectoryMemory.in_run(self.run_dir) as memory:
            self.memory = memory
            finals = await asyncio.gather(*(self.run_lane(lane, start) for lane in lanes))
            library = dict(zip([lane.name for lane in lanes], finals, strict=True))
            self.set_state(stage="integration")
            integrated = await self.integrate(start, lanes, library)
            self.set_state(stage="merge")
            merged = self.merge(integrated)
            frozen = self.freeze(merged, start)
            summary: dict[str, Any] = {"frozen": str(frozen), "frozen_id": manifest_id(frozen)}
            if c.eval_tasks:
                self.set_state(stage="eval")
                result = await self.evaluate(start, frozen)
                summary["eval"] = str(self.run_dir / "eval" / "eval.json")
                summary["acc_diff"] = result.delta("acc").diff
        self.set_state(status="done", stage="done", **summary)
        return summary

    # ------------------------------------------------------------------ one lane
    async def run_lane(self, lane: Lane, start: Path) -> Path:
        lane_dir = self.run_dir / "lanes" / lane.name
        state_path = lane_dir / "state.json"
        if not state_path.is_file():
            copy_generation(start, lane_dir / "gen_0")
            write_json(state_path, {"lane": lane.name, "modules": lane.modules, "epochs_done": 0,
                                    "generation": "gen_0", "generations": ["gen_0"]})
        while (state := _read(state_path))["epochs_done"] < self.config.epochs:
            epoch = state["epochs_done"]
            outcome = await self.run_epoch(lane, lane_dir, epoch, lane_dir / state["generation"],
                                           f"gen_{len(state['generations'])}")
            generations = state["generations"]
            if outcome["promoted_as"] and outcome["promoted_as"] not in generations:
                generations = [*generations, outcome["promoted_as"]]
            write_json(state_path, {**state, "epochs_done": epoch + 1,
                                    "generation": outcome["promoted_as"] or state["generation"],
                                    "generations": generations})
        return lane_dir / _read(state_path)["generation"]

    async def run_epoch(self, lane: Lane, lane_dir: Path, epoch: int, parent: Path,
                        next_name: str) -> dict[str, Any]:
        """One epoch of one lane; a promoted change becomes ``lane_dir/next_name``."""
        edir = lane_dir / f"epoch_{epoch}"
        if (edir / "outcome.json").is_file():
            return _read(edir / "outcome.json")
        c, memory = self.config, self.memory
        assert memory is not None
        self.emit("epoch", lane=lane.name, epoch=epoch, stage="sample")
        seed = derived_seed(c.seed, "epoch", epoch)
        tasks = [t for t in sorted(self.task_dirs)
                 if not in_cooldown(memory.task_history(lane.name, t), epoch, c.buckets)]
        parent_id = manifest_id(parent)
        sample_dir, results = await self.run_generation(parent, seed, tasks)
        write_json(edir / "sample.json", {"run": str(sample_dir.relative_to(self.run_dir)), "seed": seed,
                                          "generation": parent_id, "tasks": tasks,
                                          "skipped_cooldown": sorted(set(self.task_dirs) - set(tasks)),
                                          "acc": results.overall.acc, "simulated": results.simulated})
        records = memory.record_run(sample_dir, lane.name, epoch, parent_id, set(tasks))
        buckets = route(records, memory, c.buckets)
        write_json(edir / "buckets.json", buckets.model_dump(mode="json"))
        self.emit("epoch", lane=lane.name, epoch=epoch, stage="analyse")
        findings = await self.findings(lane, edir, buckets, records)
        agg = self.directions(lane, edir, findings)
        promoted: list[str] = []
        generation = parent
        for index, direction in enumerate(agg.directions[: c.max_directions]):
            if len(promoted) >= c.promotions_per_epoch:
                break
            for attempt in range(c.editor.retries + 1):
                change = await self.propose(lane, edir, epoch, index, attempt, direction, generation, buckets,
                                            results, sample_dir)
                if change.outcome == "promoted":
                    generation = edir / "gates" / f"{index}-{attempt}" / "staging"
                    promoted.append(change.id)
                    break
                if change.outcome == "editor_failed" or change.rejected_by == "execution":
                    break  # retry only a patch the editor got wrong; measured ineffectiveness is final
        promoted_as = None
        if promoted:
            name = next_name
            target = lane_dir / name
            if not target.exists():
                copy_generation(generation, target)
            for change_id in promoted:
                self.history.record(self.history.changes[change_id].model_copy(update={"promoted_as": name}))
            promoted_as = name
        self._discard_staging(edir)
        outcome = {"lane": lane.name, "epoch": epoch, "parent": parent_id, "promoted": promoted,
                   "promoted_as": promoted_as, "generation": manifest_id(lane_dir / promoted_as) if promoted_as
                   else parent_id, "directions": len(agg.directions), "acc": results.overall.acc,
                   "same_epoch_pair_rate": buckets.same_epoch_pair_rate, "memory_pair_rate": buckets.memory_pair_rate}
        write_json(edir / "outcome.json", outcome)
        self.emit("epoch", lane=lane.name, epoch=epoch, stage="done", promoted=len(promoted))
        return outcome

    async def findings(self, lane: Lane, edir: Path, buckets: EpochBuckets, records) -> list[Finding]:
        path = edir / "findings.jsonl"
        if path.is_file():
            return [Finding.model_validate_json(line) for line in path.read_text().splitlines() if line.strip()]
        instructions = {t: (self.task_dirs[t] / "instruction.md").read_text() for t in {r.task for r in records}}
        evidence = epoch_evidence(buckets, records, self.memory, instructions, contrast=self.config.contrast)
        analyst = self.analyst()
        findings: list[Finding] = []
        for lens in lane.modules:
            findings.extend(await analyse_all(evidence, lens, analyst))
        for finding in findings:
            self.memory.put("findings", lane.name, buckets.epoch, finding.model_dump(mode="json"),
                            key=f"{finding.lens}:{finding.task}")
            blamed = finding.locked_module
            if not finding.is_culprit and blamed and blamed != finding.lens and blamed not in lane.modules:
                # evidence against another module is kept for that module's lane
                self.memory.put("findings", blamed, buckets.epoch, finding.model_dump(mode="json"),
                                key=f"referred-by-{finding.lens}:{finding.task}")
        write_text(path, "".join(f.model_dump_json() + "\n" for f in findings))
        return findings

    def directions(self, lane: Lane, edir: Path, findings: list[Finding]) -> Aggregation:
        path = edir / "directions.json"
        if path.is_file():
            return Aggregation.model_validate(_read(path))
        agg = aggregate([f for f in findings if f.lens in lane.modules], self.config.aggregate)
        write_json(path, agg.model_dump(mode="json"))
        epoch = int(edir.name.split("_")[1])
        for direction in agg.directions:
            self.memory.put("directions", lane.name, epoch, direction.model_dump(mode="json"), key=direction.id)
        return agg

    # ------------------------------------------------------------------ one proposal
    def _anchors(self, lane: str, epoch: int, buckets: EpochBuckets, exclude: set[str]) -> list[str]:
        pool = [t.task for t in buckets.in_bucket(*ALL_PASS) if t.task not in exclude]
        ranked = sorted(pool, key=lambda t: derived_seed(self.config.seed, "anchor", lane, epoch, t))
        return sorted(ranked[: self.config.gates.anchors])

    def _evidence_tasks(self, direction: Direction) -> list[str]:
        weight = {f.task: evidence_weight(f, self.config.aggregate) for f in direction.findings}
        ranked = sorted(direction.tasks, key=lambda t: (-weight.get(t, 0.0), t))
        return sorted(ranked[: self.config.gates.max_evidence_tasks])

    async def propose(self, lane: Lane, edir: Path, epoch: int, index: int, attempt: int, direction: Direction,
                      parent: Path, buckets: EpochBuckets, parent_results: RunResults, parent_run: Path) -> Change:
        change_id = f"{lane.name}/e{epoch}/d{index}-{attempt}"
        pdir = edir / "gates" / f"{index}-{attempt}"
        if (pdir / "record.json").is_file():
            return Change.model_validate(_read(pdir / "record.json"))
        staging = pdir / "staging"
        if staging.exists():  # a killed attempt: the editor is deterministic, so redo it from scratch
            shutil.rmtree(staging)
        for leftover in pdir.glob("staging.tmp"):
            shutil.rmtree(leftover)
        base = {"id": change_id, "lane": lane.name, "epoch": epoch, "module": direction.module,
                "direction": direction.id, "mechanism": direction.mechanism, "summary": direction.summary,
                "tasks": direction.tasks, "vote": direction.vote, "parent": manifest_id(parent)}
        editor = self.editor()
        request = EditRequest(direction=direction, parent_dir=parent,
                              modules=[direction.module] if lane.locked else list(self.config.modules),
                              excerpts=_excerpts(direction), history=self.history.brief(direction.module),
                              attempt=attempt)
        self.emit("proposal", lane=lane.name, epoch=epoch, direction=direction.id, stage="edit")
        try:
            proposal = await editor.edit(request, staging)
        except (EditorError, OSError) as exc:
            change = Change(**base, editor=editor.name, outcome="editor_failed", reason=str(exc))
            return self._settle(pdir, change)
        base.update(editor=editor.name, description=proposal.description, generation=manifest_id(staging) or None,
                    files=proposal.changed_files, diff=proposal.diff)
        verdicts: list[Verdict] = []
        for gate in ("static", "review", "execution"):
            self.emit("proposal", lane=lane.name, epoch=epoch, direction=direction.id, stage=gate)
            verdict = await self._gate(gate, proposal, lane, epoch, buckets, direction, parent_results, parent_run,
                                       pdir)
            verdicts.append(verdict)
            if not verdict.passed:
                break
        records = [GateRecord(gate=v.gate, passed=v.passed, reason=v.reason, details=v.details) for v in verdicts]
        last = verdicts[-1]
        change = Change(**base, gates=records, outcome="promoted" if last.passed else "rejected",
                        rejected_by=None if last.passed else last.gate, reason=last.reason)
        return self._settle(pdir, change)

    def _settle(self, pdir: Path, change: Change) -> Change:
        if change.outcome != "promoted" and (pdir / "staging").exists():
            shutil.rmtree(pdir / "staging")  # rollback: the parent was only read; the staging copy goes
        write_json(pdir / "record.json", change.model_dump(mode="json"))
        self.memory.put("gate_verdicts", change.lane, change.epoch, change.model_dump(mode="json"), key=change.id)
        self.history.record(change)
        self.emit("gate", lane=change.lane, epoch=change.epoch, change=change.id, outcome=change.outcome,
                  rejected_by=change.rejected_by, reason=change.reason)
        return change

    async def _gate(self, gate: str, proposal: Proposal, lane: Lane, epoch: int, buckets: EpochBuckets,
                    direction: Direction, parent_results: RunResults, parent_run: Path, pdir: Path) -> Verdict:
        if gate == "static":
            return await StaticGate(StaticConfig(locked=lane.locked)).check(proposal)
        if gate == "review":
            reviewer = self._role_model("reviewer")
            return await ReviewGate(reviewer, sorted(self.task_dirs), self.config.gates.review).check(proposal)
        evidence = self._evidence_tasks(direction)
        anchors = self._anchors(lane.name, epoch, buckets, set(evidence))
        sample = Sample(evidence=[self.task_dirs[t] for t in evidence], anchors=[self.task_dirs[t] for t in anchors])
        seed = _read(pdir.parent.parent / "sample.json")["seed"]
        config = self.config.gates.execution.model_copy(update={"k": self.config.k, "seed": seed})
        template = self.run_template()
        return await ExecutionGate(template, pdir / "execution", config, gate=self.gate,
                                   budget_path=self.run_dir / "budget.json").check(
            proposal, sample, parent=parent_results, parent_run=parent_run)

    def _discard_staging(self, edir: Path) -> None:
        for staging in (edir / "gates").glob("*/staging"):
            shutil.rmtree(staging)

    # ------------------------------------------------------------------ integration, merge, freeze, eval
    async def integrate(self, start: Path, lanes: list[Lane], finals: dict[str, Path]) -> Path:
        """Combine the lanes (mode=lanes); resolve conflicts under the gates. Returns the library dir."""
        idir = self.run_dir / "integration"
        if (idir / "result.json").is_file():
            return self.run_dir / _read(idir / "result.json")["library"]
        if self.config.mode != "lanes":
            (lane,) = lanes
            result = {"library": str(finals[lane.name].relative_to(self.run_dir)),
                      "skipped": f"mode={self.config.mode}: one lane, nothing to combine"}
            write_json(idir / "result.json", result)
            return finals[lane.name]
        evolved = {lane.modules[0]: finals[lane.name] for lane in lanes
                   if changed_modules(finals[lane.name], start)}
        combined = idir / "combined"
        if not combined.exists():
            combine(start, evolved, combined, f"integration of {', '.join(sorted(evolved)) or 'no lane'}")
        loaded = await load_in_subprocess(combined, StaticConfig())
        if isinstance(loaded, str) or not loaded.get("ok"):
            raise RuntimeError(f"{combined}: the combined library does not load: {loaded}")
        result: dict[str, Any] = {"evolved_modules": sorted(evolved), "combined": manifest_id(combined)}
        library = combined
        if not self.config.integration.enabled:
            result["skipped"] = "integration.enabled is false: lanes combined without the conflict check"
        elif evolved:
            seed = derived_seed(self.config.seed, "integration")
            tasks = sorted(self.task_dirs)
            run, results = await self.run_generation(combined, seed, tasks)
            conflicts = await self.conflicts(finals, lanes, results, seed)
            result.update(acc=results.overall.acc, run=str(run.relative_to(self.run_dir)), conflicts=conflicts)
            if len({c["task"] for c in conflicts}) >= self.config.integration.conflict_min_tasks:
                library = await self.resolve(idir, combined, start, conflicts, results, run, evolved)
        result["library"] = str(library.relative_to(self.run_dir))
        result["generation"] = manifest_id(library)
        write_json(idir / "result.json", result)
        return library

    async def conflicts(self, finals: dict[str, Path], lanes: list[Lane], combined: RunResults,
                        seed: int) -> list[dict[str, Any]]:
        """Tasks a lane's final generation passes that the combined library never passes: another
        module's change undid that lane's gain. Candidates: every attempt of the lane's latest rollouts
        passed and no attempt of the combined library did; confirmed when the lane's generation, run on
        the candidates with the combined run's seed (same attempt seeds), passes most of its attempts."""
        lost = {t.task for t in combined.per_task if t.passes == 0 and t.attempts - t.invalid > 0}
        out = []
        for lane in lanes:
            final_id = manifest_id(finals[lane.name])
            candidates = sorted(task for task, (passes, valid) in self._latest(lane.name, final_id).items()
                                if task in lost and valid and passes == valid)
            if not candidates:
                continue
            _, confirm = await self.run_generation(finals[lane.name], seed, candidates)
            for row in confirm.per_task:
                valid = row.attempts - row.invalid
                if row.task in candidates and valid and 2 * row.passes >= valid:
                    out.append({"task": row.task, "lane": lane.name, "lane_passes": row.passes,
                                "lane_attempts": valid})
        return out

    def _latest(self, lane: str, generation: str) -> dict[str, tuple[int, int]]:
        """Per task (passes, valid attempts) of ``generation`` in its latest sampled epoch of ``lane``, or
        from the execution gate that promoted it when it was never sampled afterwards."""
        records = [r for r in self.memory.attempts(lane) if r.generation == generation]
        if records:
            last = max(r.epoch for r in records)
            out: dict[str, tuple[int, int]] = {}
            for r in records:
                if r.epoch == last and r.infra_error is None:
                    p, v = out.get(r.task, (0, 0))
                    out[r.task] = (p + r.passed, v + 1)
            return out
        for change in self.history.promoted(lane):
            if change.generation == generation:
                details = next((g.details for g in change.gates if g.gate == "execution"), {})
                return {t: (sum(f.endswith("1") for f in flips), len(flips))
                        for t, flips in details.get("per_task", {}).items()}
        return {}

    async def resolve(self, idir: Path, combined: Path, start: Path, conflicts: list[dict[str, Any]],
                      results: RunResults, run: Path, evolved: dict[str, Path]) -> Path:
        """Try reverting one evolved module at a time (suspects: modules other than the lanes that lost
        a task, most implicated first); the first revert the gates accept becomes the library."""
        owners = {c["lane"] for c in conflicts}
        lost = sorted({c["task"] for c in conflicts})
        suspects = sorted(evolved, key=lambda m: (m in owners, m))
        anchors = sorted(t.task for t in results.per_task if t.passes == t.attempts and t.attempts)[
            : self.config.gates.anchors]
        for index, module in enumerate(suspects):
            pdir = idir / "resolve" / f"{index}-{module}"
            record_path = pdir / "record.json"
            if record_path.is_file():
                change = Change.model_validate(_read(record_path))
            else:
                if (pdir / "staging").exists():
                    shutil.rmtree(pdir / "staging")
                pdir.mkdir(parents=True, exist_ok=True)
                revert_module(combined, start, module, pdir / "staging",
                              f"integration: revert {module} (conflict on {len(lost)} task(s))")
                direction = (f"integration conflict: {len(lost)} task(s) passing under another lane fail "
                             f"under the combined library; revert {module}")
                proposal = Proposal.build(module, combined, pdir / "staging",
                                          f"Revert {module} to its starting functions, because in the combined "
                                          "library its change undoes another module's gain: tasks that lane passed "
                                          "fail under the combination, and the revert leads them to pass again.",
                                          direction, lost)
                verdicts = [await StaticGate().check(proposal)]
                if verdicts[-1].passed:
                    verdicts.append(await ReviewGate(self._role_model("reviewer"), sorted(self.task_dirs),
                                                     self.config.gates.review).check(proposal))
                if verdicts[-1].passed:
                    seed = derived_seed(self.config.seed, "integration")
                    config = ExecutionConfig(**{**self.config.gates.execution.model_dump(), "k": self.config.k,
                                                "seed": seed})
                    sample = Sample(evidence=[self.task_dirs[t] for t in lost],
                                    anchors=[self.task_dirs[t] for t in anchors if t not in lost])
                    verdicts.append(await ExecutionGate(self.run_template(), pdir / "execution", config,
                                                        gate=self.gate, budget_path=self.run_dir / "budget.json").check(
                        proposal, sample, parent=results, parent_run=run))
                last = verdicts[-1]
                change = Change(id=f"integration/{module}", lane="integration", epoch=self.config.epochs,
                                module=module, direction="integration-conflict", mechanism="revert",
                                summary=direction, tasks=lost, editor="integration-revert",
                                description=proposal.description, parent=manifest_id(combined),
                                generation=manifest_id(pdir / "staging"), files=proposal.changed_files,
                                diff=proposal.diff, gates=[GateRecord(**v.model_dump()) for v in verdicts],
                                outcome="promoted" if last.passed else "rejected",
                                rejected_by=None if last.passed else last.gate, reason=last.reason)
                if not last.passed:
                    shutil.rmtree(pdir / "staging")
                write_json(record_path, change.model_dump(mode="json"))
                self.history.record(change)
            if change.outcome == "promoted":
                for promoted in self.history.promoted(module):
                    self.history.set_fate(promoted.id, "reverted at integration")
                return pdir / "staging"
        return combined

    def merge(self, library: Path) -> Path:
        """Function Merge over the library; returns the merged generation (or the library unchanged)."""
        path = self.run_dir / "merge.json"
        if path.is_file():
            return self.run_dir / _read(path)["library"]
        merges = near_duplicates(load_generation(library), self.config.integration.merge_similarity)
        target = library
        if merges:
            target = self.run_dir / "merged"
            if target.exists():
                shutil.rmtree(target)
            merge_functions(library, merges, target, f"function merge of {len(merges)} pair(s)")
            for m in merges:
                for change in self.history.changes.values():
                    if change.outcome == "promoted" and any(f.endswith(f"{m.merged}.py") for f in change.files):
                        self.history.set_fate(change.id, f"merged into {m.kept}")
        write_json(path, {"library": str(target.relative_to(self.run_dir)), "generation": manifest_id(target),
                          "merges": [m.model_dump() for m in merges]})
        return target

    def freeze(self, library: Path, start: Path) -> Path:
        frozen = self.run_dir / "frozen"
        if not frozen.exists():
            copy_generation(library, frozen, created_by=f"frozen by evolution run {self.run_dir.name}")
        gen = load_generation(frozen)
        write_json(self.run_dir / "frozen.json", {
            "generation": gen.id, "path": "frozen", "start": manifest_id(start),
            "changed_modules": changed_modules(frozen, start),
            "functions": {m: gen.default_active()[m] for m in gen.default_active()},
            "descriptions": {k: f.description for k, f in gen.functions.items()}})
        return frozen

    async def evaluate(self, start: Path, frozen: Path) -> EvalResult:
        out = self.run_dir / "eval"
        if (out / "eval.json").is_file():
            return EvalResult.model_validate(_read(out / "eval.json"))
        template = self.run_template().model_copy(update={
            "tasks": self.config.eval_tasks, "k": self.config.eval_k, "seed": derived_seed(self.config.seed, "eval")})
        return await evaluate(template, start, frozen, out, gate=self.gate, budget_path=self.run_dir / "budget.json")


def _discover(paths: list[Path]) -> list[Path]:
    from modularrsi.tasks.model import discover

    return list(discover(paths))


def _excerpts(direction: Direction) -> list[str]:
    """What the editor sees of the findings' trajectories: divergences and evidence steps, no outcomes."""
    return [f"[{f.kind}] {f.divergence} (steps {', '.join(map(str, f.evidence_steps[:6])) or '-'})"
            for f in direction.findings[:6]]
