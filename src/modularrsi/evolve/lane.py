"""A lane's epoch loop: sample → buckets → findings → directions → edit → gates → promote.

``mode=lanes`` gives one lane per module, each locked to it; ``joint`` one lane holding every module
(each change still locked to its direction's module); ``monolithic`` one lane without the lock. An epoch
whose ``outcome.json`` exists is read back instead of run; every other file of the epoch is written
only after its stage finished, so a killed lane resumes where it stood (see :mod:`.pipeline`).
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from pathlib import Path

from modularrsi.evolve.aggregate import Aggregation, aggregate, evidence_weight
from modularrsi.evolve.analysis import analyse_all
from modularrsi.evolve.buckets import ALL_PASS, EpochBuckets, in_cooldown, route
from modularrsi.evolve.config import EvolveConfig
from modularrsi.evolve.context import RunContext
from modularrsi.evolve.editor import EditorError, EditRequest
from modularrsi.evolve.evidence import epoch_evidence
from modularrsi.evolve.findings import Direction, Finding
from modularrsi.evolve.gates import GateVerdict, run_chain
from modularrsi.evolve.gates.execution import Sample, ScreenPlan
from modularrsi.evolve.gates.sequential import ExecutionDetails
from modularrsi.evolve.gates.static import StaticConfig, StaticGate
from modularrsi.evolve.history import Change
from modularrsi.evolve.layout import EpochLayout, LaneLayout, ProposalLayout
from modularrsi.evolve.libraryops import copy_generation
from modularrsi.evolve.memory import AttemptRecord
from modularrsi.evolve.proposal import Proposal, manifest_id
from modularrsi.evolve.reply_cases import SHOWN_TO, recorded_replies
from modularrsi.evolve.runfiles import EpochOutcome, EpochSample, Lane, LaneState, read_model, write_model
from modularrsi.evolve.seeds import derived_seed
from modularrsi.rollouts.results import RunResults
from modularrsi.util.files import write_json, write_text


def lanes_for(config: EvolveConfig) -> list[Lane]:
    if config.mode == "joint":
        return [Lane(name="joint", modules=list(config.modules))]
    if config.mode == "monolithic":
        return [Lane(name="monolithic", modules=list(config.modules), locked=False)]
    return [Lane(name=m, modules=[m]) for m in config.modules]


async def run_lane(evo: RunContext, lane: Lane, start: Path) -> Path:
    """Run (or resume) every epoch of ``lane``; returns the lane's final generation directory."""
    layout = evo.layout.lane(lane.name)
    if not layout.state.is_file():
        copy_generation(start, layout.generation("gen_0"))
        write_model(layout.state, LaneState(lane=lane.name, modules=lane.modules))
    while (state := read_model(layout.state, LaneState)).epochs_done < evo.config.epochs:
        epoch = EpochRun(evo, lane, layout, state.epochs_done)
        outcome = await epoch.run(layout.generation(state.generation), f"gen_{len(state.generations)}")
        generations = state.generations
        if outcome.promoted_as and outcome.promoted_as not in generations:
            generations = [*generations, outcome.promoted_as]
        write_model(layout.state, state.model_copy(update={
            "epochs_done": state.epochs_done + 1, "generation": outcome.promoted_as or state.generation,
            "generations": generations}))
    return layout.generation(read_model(layout.state, LaneState).generation)


@dataclass
class EpochRun:
    """One epoch of one lane; its sample (results, run directory, seed) is set by :meth:`sample`."""

    evo: RunContext
    lane: Lane
    lane_layout: LaneLayout
    epoch: int
    results: RunResults | None = None
    sample_run: Path | None = None

    @property
    def layout(self) -> EpochLayout:
        return self.lane_layout.epoch(self.epoch)

    @property
    def seed(self) -> int:
        return derived_seed(self.evo.config.seed, "epoch", self.epoch)

    def emit(self, event: str, **data: object) -> None:
        self.evo.emit(event, lane=self.lane.name, epoch=self.epoch, **data)

    async def run(self, parent: Path, next_name: str) -> EpochOutcome:
        """The epoch's outcome; a promoted change becomes the lane's generation ``next_name``."""
        if self.layout.outcome.is_file():
            return read_model(self.layout.outcome, EpochOutcome)
        self.emit("epoch", stage="sample")
        records = await self.sample(parent)
        buckets = route(records, self.evo.memory, self.evo.config.buckets)
        write_json(self.layout.buckets, buckets.model_dump(mode="json"))
        self.emit("epoch", stage="analyse")
        findings = await self.findings(buckets, records)
        agg = self.directions(findings)
        promoted, generation = await self.promote(agg, parent, buckets)
        promoted_as = self.adopt(promoted, generation, next_name)
        self.discard_staging()
        assert self.results is not None
        outcome = EpochOutcome(
            lane=self.lane.name, epoch=self.epoch, parent=manifest_id(parent), promoted=promoted,
            promoted_as=promoted_as, generation=manifest_id(self.lane_layout.generation(promoted_as)) if promoted_as
            else manifest_id(parent), directions=len(agg.directions), acc=self.results.overall.acc,
            same_epoch_pair_rate=buckets.same_epoch_pair_rate, memory_pair_rate=buckets.memory_pair_rate)
        write_model(self.layout.outcome, outcome)
        self.emit("epoch", stage="done", promoted=len(promoted))
        return outcome

    async def sample(self, parent: Path) -> list[AttemptRecord]:
        """K attempts per task (tasks in cooldown skipped) with the lane's current generation."""
        evo, memory = self.evo, self.evo.memory
        tasks = [t for t in sorted(evo.task_dirs)
                 if not in_cooldown(memory.task_history(self.lane.name, t), self.epoch, evo.config.buckets)]
        parent_id = manifest_id(parent)
        self.sample_run, self.results = await evo.run_generation(parent, self.seed, tasks)
        write_model(self.layout.sample, EpochSample(
            run=evo.layout.relative(self.sample_run), seed=self.seed, generation=parent_id, tasks=tasks,
            skipped_cooldown=sorted(set(evo.task_dirs) - set(tasks)), acc=self.results.overall.acc,
            simulated=self.results.simulated))
        return memory.record_run(self.sample_run, self.lane.name, self.epoch, parent_id, set(tasks))

    async def findings(self, buckets: EpochBuckets, records: list[AttemptRecord]) -> list[Finding]:
        path = self.layout.findings
        if path.is_file():
            return [Finding.model_validate_json(line) for line in path.read_text().splitlines() if line.strip()]
        evo = self.evo
        instructions = {t: (evo.task_dirs[t] / "instruction.md").read_text() for t in {r.task for r in records}}
        evidence = epoch_evidence(buckets, records, evo.memory, instructions, contrast=evo.config.contrast)
        analyst = evo.analyst()
        findings: list[Finding] = []
        for lens in self.lane.modules:
            findings.extend(await analyse_all(evidence, lens, analyst))
        for finding in findings:
            evo.memory.put("findings", self.lane.name, buckets.epoch, finding.model_dump(mode="json"),
                           key=f"{finding.lens}:{finding.task}")
            blamed = finding.locked_module
            if not finding.is_culprit and blamed and blamed != finding.lens and blamed not in self.lane.modules:
                # evidence against another module is kept under that module's lane (read by the report's
                # Evolution History)
                evo.memory.put("findings", blamed, buckets.epoch, finding.model_dump(mode="json"),
                               key=f"referred-by-{finding.lens}:{finding.task}")
        write_text(path, "".join(f.model_dump_json() + "\n" for f in findings))
        return findings

    def directions(self, findings: list[Finding]) -> Aggregation:
        path = self.layout.directions
        if path.is_file():
            return read_model(path, Aggregation)
        agg = aggregate([f for f in findings if f.lens in self.lane.modules], self.evo.config.aggregate)
        write_json(path, agg.model_dump(mode="json"))
        for direction in agg.directions:
            self.evo.memory.put("directions", self.lane.name, self.epoch, direction.model_dump(mode="json"),
                                key=direction.id)
        return agg

    async def promote(self, agg: Aggregation, parent: Path, buckets: EpochBuckets) -> tuple[list[str], Path]:
        """Each direction in vote order is raced (:meth:`race`); a promoted change is the parent of the next
        direction's. Returns the promoted change ids and the last promoted staging."""
        c = self.evo.config
        promoted: list[str] = []
        generation = parent
        for index, direction in enumerate(agg.directions[: c.max_directions]):
            if len(promoted) >= c.promotions_per_epoch:
                break
            won = await self.race(index, direction, generation, buckets)
            if won is not None:
                generation = self.layout.proposal(index, won[0]).staging
                promoted.append(won[1].id)
        return promoted, generation

    async def race(self, index: int, direction: Direction, parent: Path,
                   buckets: EpochBuckets) -> tuple[int, Change] | None:
        """Up to ``editor.candidates`` candidate mechanisms for ``direction`` (``editor.retries`` more edits
        replace ones the editor, static gate or review refused), each screened; the best-screened is
        confirmed at alpha, the runner-up at ``second_alpha_share`` of it. The race ends with the confirms:
        a measured rejection is final. Returns (candidate slot, change) of the promoted one."""
        c = self.evo.config
        sample = self.execution_sample(direction, buckets)
        screened: list[tuple[int, Proposal, list[GateVerdict], dict]] = []
        decided: dict[int, Change] = {}
        reached, slot = 0, 0
        while reached < c.editor.candidates and slot < c.editor.candidates + c.editor.retries:
            avoid = [f for ch in decided.values() for f in ch.files] + [f for _, p, _, _ in screened
                                                                        for f in p.changed_files]
            got = await self.candidate(index, slot, direction, parent, sample, avoid)
            if isinstance(got, Change):
                decided[slot] = got
                if got.outcome == "promoted":  # a resumed race whose confirm had accepted
                    return slot, got
                reached += got.rejected_by == "execution"
            else:
                screened.append((slot, *got))
                reached += 1
            slot += 1
        confirms = sum(bool(ch.gates) and getattr(ExecutionDetails.of(ch.gates[-1]), "stage", "") == "confirm"
                       for ch in decided.values())
        screens = {s[0]: ExecutionDetails.model_validate(s[2][-1].details) for s in screened}
        ranked = sorted(screened, key=lambda s: (screens[s[0]].breaks - screens[s[0]].fixes, -screens[s[0]].fixes,
                                                 s[0]))
        winner = None
        for slot, proposal, verdicts, base in ranked:
            where = self.layout.proposal(index, slot)
            if confirms < 2 and winner is None:
                share = 1.0 if confirms == 0 else c.gates.execution.second_alpha_share
                confirms += 1
                self.emit("proposal", direction=direction.id, stage="confirm")
                confirm = await self.evo.execution_gate(where, self.seed).confirm(
                    proposal, sample, screens[slot].fixed_tasks, share)
                change = self.evo.settle(where, Change.decided(base, [*verdicts, confirm]))
                if change.outcome == "promoted":
                    winner = (slot, change)
                continue
            why = "another candidate of this direction was promoted" if winner else \
                "two better-screened candidates of this direction were confirmed first"
            self.evo.settle(where, Change.decided(base, [*verdicts, GateVerdict.fail(
                "execution", f"raced: {why} ({verdicts[-1].reason})", stage="race")]))
        return winner

    def adopt(self, promoted: list[str], generation: Path, name: str) -> str | None:
        """The promoted generation becomes the lane's ``name``; history records where each change went."""
        if not promoted:
            return None
        target = self.lane_layout.generation(name)
        if not target.exists():
            copy_generation(generation, target)
        history = self.evo.history
        for change_id in promoted:
            history.record(history.changes[change_id].model_copy(update={"promoted_as": name}))
        return name

    def discard_staging(self) -> None:
        for staging in self.layout.gates.glob("*/staging"):
            shutil.rmtree(staging)

    async def candidate(self, index: int, slot: int, direction: Direction, parent: Path, sample: Sample,
                        avoid: list[str]) -> Change | tuple[Proposal, list[GateVerdict], dict]:
        """Edit a staging copy of ``parent`` along ``direction`` (a mechanism other than ``avoid``'s files),
        then static → review → screen. A decided change (its record written) or, screened, what the
        confirm needs: the proposal, its verdicts and its record fields."""
        where, evo, lane = self.layout.proposal(index, slot), self.evo, self.lane
        change_id = f"{lane.name}/e{self.epoch}/d{index}-{slot}"
        if change_id in evo.history.changes:  # decided before the run was stopped
            return evo.history.changes[change_id]
        reset_staging(where)
        base = {"id": change_id, "lane": lane.name, "epoch": self.epoch,
                "module": direction.module, "direction": direction.id, "mechanism": direction.mechanism,
                "summary": direction.summary, "tasks": direction.tasks, "vote": direction.vote,
                "parent": manifest_id(parent)}
        editor = evo.editor()
        wanted = evo.config.editor.replies if direction.module in SHOWN_TO else 0
        replies = recorded_replies((r.trial_dir for t in direction.tasks
                                    for r in evo.memory.attempts(lane.name, self.epoch, t)),
                                   refused=wanted, read=wanted) if wanted else []
        request = EditRequest(direction=direction, parent_dir=parent,
                              modules=[direction.module] if lane.locked else list(evo.config.modules),
                              excerpts=excerpts(direction), history=evo.history.brief(direction.module),
                              attempt=slot, avoid=sorted(set(avoid)), replies=replies)
        self.emit("proposal", direction=direction.id, stage="edit")
        try:
            proposal = await editor.edit(request, where.staging)
        except (EditorError, OSError) as exc:
            return evo.settle(where, Change(**base, editor=editor.name, outcome="editor_failed", reason=str(exc)))
        base.update(editor=editor.name, description=proposal.description,
                    generation=manifest_id(where.staging) or None, files=proposal.changed_files, diff=proposal.diff)
        gate = evo.execution_gate(where, self.seed)
        gates = [StaticGate(StaticConfig(locked=lane.locked)), evo.review_gate(),
                 gate.bound(sample, self.results).screen_stage()]
        verdicts = await run_chain(gates, proposal,
                                   lambda name: self.emit("proposal", direction=direction.id, stage=name))
        if not verdicts[-1].passed:
            return evo.settle(where, Change.decided(base, verdicts))
        return proposal, verdicts, base

    def execution_sample(self, direction: Direction, buckets: EpochBuckets) -> Sample:
        """The direction's strongest evidence tasks and seeded all-pass anchors outside them."""
        c = self.evo.config
        weight = {f.task: evidence_weight(f, c.aggregate) for f in direction.findings}
        evidence = sorted(sorted(direction.tasks, key=lambda t: (-weight.get(t, 0.0), t))[: c.gates.max_evidence_tasks])
        pool = [t.task for t in buckets.in_bucket(*ALL_PASS) if t.task not in set(evidence)]
        # one ranking for every lane, so lanes with one parent share the parent side of their anchors
        ranked = sorted(pool, key=lambda t: derived_seed(c.seed, "anchor", self.epoch, t))
        anchors = sorted(ranked[: c.gates.anchors])
        task_dirs = self.evo.task_dirs
        screen = None
        if self.results is not None and self.sample_run is not None:
            failing: dict[str, list[int]] = {t: [] for t in evidence}
            for a in self.results.attempts:
                if a.task in failing and a.invalid is None and a.reward is not None and a.reward < 1.0:
                    failing[a.task].append(a.attempt)
            screen = ScreenPlan(seed=self.seed, failing=failing, replay=self.sample_run / "cache.sqlite",
                                anchors=[task_dirs[t] for t in sorted(ranked[: c.gates.execution.screen_anchors])])
        return Sample(evidence=[task_dirs[t] for t in evidence], anchors=[task_dirs[t] for t in anchors],
                      screen=screen)


def reset_staging(where: ProposalLayout) -> None:
    """A killed attempt left a staging copy: the editor is deterministic, so it is redone from scratch."""
    if where.staging.exists():
        shutil.rmtree(where.staging)
    for leftover in where.root.glob("staging.tmp"):
        shutil.rmtree(leftover)


def excerpts(direction: Direction) -> list[str]:
    """What the editor sees of the findings' trajectories: divergences and evidence steps, no outcomes."""
    return [f"[{f.kind}] {f.divergence} (steps {', '.join(map(str, f.evidence_steps[:6])) or '-'})"
            for f in direction.findings[:6]]
