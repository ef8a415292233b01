"""The execution gate: parent and staging run *paired* on fresh attempts of a stratified sample; a test over
tasks decides.

Sample (:class:`Sample`): the direction's supporting tasks (*evidence*: the change claims to help
there) plus *anchors* drawn from the all-pass buckets (the change must not break what works). Both
generations run every sample task ``k`` times at the gate's own seed (derived from ``seed`` and never
the seed of the sample the evidence was chosen from), so attempt ``i`` of a task gets the same attempt
seed on both sides (``rollouts.runner.attempt_seed``); a pair is (task, attempt). The parent is always
run afresh: evidence tasks were chosen *because* the parent failed them in the epoch's sample, so that
sample is biased against the parent, and a change that does nothing would look like a gain there
(regression to the mean). Runs go to ``<work_dir>/<staging id>/parent`` and ``…/staging`` and are
resumable: re-checking the same proposal reuses finished attempts.

Decision rule (:func:`decide`). Each task becomes one number, its staging minus parent pass rate over
its valid pairs (an attempt without a valid reward is a fail; a pair whose *parent* attempt errored is
left out, since it says nothing about the change). Attempts of one task are not independent pairs, so
nothing counts attempts:

- Evidence: a one-sided exact sign-flip test over the evidence tasks' differences
  (:func:`~modularrsi.evolve.gates.stats.sign_flip_p`) must give ``p < alpha`` (default 0.1: samples are
  small; with every changed task improving it takes 4 changed tasks, so a sample needs at least 4
  evidence tasks to be able to pass at all).
- Anchors: at most ``max_anchor_regressions`` (default 0) anchor tasks with fewer passes under staging.

Both must hold. Only infrastructure problems (a budget stop, a broken task) raise. Power and the false
acceptance rate of this rule are measured by :mod:`.power` (docs/evolve.md).
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, model_validator

from modularrsi.evolve.gates import GateVerdict
from modularrsi.evolve.gates.stats import min_tasks_needed, sign_flip_p
from modularrsi.evolve.proposal import Proposal, manifest_id
from modularrsi.evolve.seeds import derived_seed
from modularrsi.rollouts.config import RunConfig
from modularrsi.rollouts.results import RunResults
from modularrsi.rollouts.run import execute
from modularrsi.util.files import write_json

GATE = "execution"


class ExecutionConfig(BaseModel):
    """Thresholds and sampling of the execution gate."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    k: int = Field(default=3, ge=1, description="Attempts per task and side (same seeds on both sides).")
    seed: int = Field(default=0, description="Seed the gate's own run seed derives from (the parent and staging "
                      "runs share it; it differs from this seed, so an epoch sample run at it is never reused).")
    alpha: float = Field(default=0.1, gt=0, lt=1, description="Level of the one-sided sign-flip test over the "
                         "evidence tasks' pass-rate differences.")
    max_anchor_regressions: int = Field(default=0, ge=0, description="Anchor tasks allowed fewer passes under "
                                        "staging than under the parent.")

    @property
    def run_seed(self) -> int:
        """The seed of both gate runs: fresh attempts, never those of a sample run at ``seed``."""
        return derived_seed(self.seed, "execution-gate")


class Sample(BaseModel):
    """The tasks to run: evidence (the direction's supporting tasks) and anchors (all-pass buckets)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    evidence: list[Path] = Field(min_length=1, description="Task directories of the supporting tasks.")
    anchors: list[Path] = Field(default_factory=list, description="Task directories of all-pass anchors.")

    @model_validator(mode="after")
    def _disjoint(self) -> Sample:
        both = {p.name for p in self.evidence} & {p.name for p in self.anchors}
        if both:
            raise ValueError(f"task(s) both evidence and anchor: {', '.join(sorted(both))}")
        return self


class Pair(BaseModel):
    """One (task, attempt) run by both generations on the same seed."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    task: str
    attempt: int
    parent: bool
    staging: bool


class Flips(BaseModel):
    """Attempt flip counts of a set of pairs (b = fail→pass, c = pass→fail): description only, the test counts tasks."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    pairs: int
    b: int
    c: int

    @classmethod
    def of(cls, pairs: list[Pair]) -> Flips:
        return cls(pairs=len(pairs), b=sum(not p.parent and p.staging for p in pairs),
                   c=sum(p.parent and not p.staging for p in pairs))


class TaskDiff(BaseModel):
    """One task's pairs reduced to one number: staging minus parent pass rate (the unit of the test)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    task: str
    pairs: int
    parent_passes: int
    staging_passes: int

    @property
    def diff(self) -> float:
        return (self.staging_passes - self.parent_passes) / self.pairs if self.pairs else 0.0

    @classmethod
    def per_task(cls, pairs: list[Pair]) -> list[TaskDiff]:
        tasks: dict[str, list[Pair]] = {}
        for pair in pairs:
            tasks.setdefault(pair.task, []).append(pair)
        return [cls(task=t, pairs=len(ps), parent_passes=sum(p.parent for p in ps),
                    staging_passes=sum(p.staging for p in ps)) for t, ps in sorted(tasks.items())]


def _tasks_summary(diffs: list[TaskDiff]) -> dict[str, int]:
    return {"tasks": len(diffs), "improved": sum(d.diff > 0 for d in diffs),
            "worsened": sum(d.diff < 0 for d in diffs)}


def decide(evidence: list[Pair], anchors: list[Pair], config: ExecutionConfig) -> GateVerdict:
    """The decision rule of the module docstring, on hand-made or measured pairs (a pure function)."""
    ev_tasks, an_tasks = TaskDiff.per_task(evidence), TaskDiff.per_task(anchors)
    ev, an = _tasks_summary(ev_tasks), _tasks_summary(an_tasks)
    p = sign_flip_p([d.diff for d in ev_tasks])
    details = {"evidence": {**Flips.of(evidence).model_dump(), **ev},
               "anchors": {**Flips.of(anchors).model_dump(), **an},
               "p_value": round(p, 6), "test": "one-sided sign-flip test over tasks", "alpha": config.alpha,
               "max_anchor_regressions": config.max_anchor_regressions}
    summary = (f"evidence tasks improved {ev['improved']}, worsened {ev['worsened']} of {ev['tasks']} "
               f"(sign-flip test over tasks p={p:.3g}); anchor tasks worsened {an['worsened']} of {an['tasks']}")
    problems = []
    if p >= config.alpha:
        needed = min_tasks_needed(config.alpha)
        short = f"; {ev['tasks']} evidence tasks cannot reach it, {needed} needed" if ev["tasks"] < needed else ""
        problems.append(f"evidence does not move (p={p:.3g} ≥ alpha={config.alpha:g}{short})")
    if an["worsened"] > config.max_anchor_regressions:
        problems.append(f"{an['worsened']} anchor regression(s) > {config.max_anchor_regressions} allowed")
    if problems:
        return GateVerdict.fail(GATE, "; ".join(problems) + f" — {summary}", **details)
    return GateVerdict.ok(GATE, summary, **details)


def pairs_of(parent: RunResults, staging: RunResults, tasks: list[str]) -> list[Pair]:
    """Pairs of ``tasks`` from two runs; pairs whose parent attempt is invalid are left out (an invalid staging
    attempt is a fail: a change that makes attempts crash is worse)."""
    def table(results: RunResults) -> dict[tuple[str, int], tuple[bool, bool]]:
        invalid = {(a.task, a.attempt) for a in results.invalid()}
        return {(a.task, a.attempt): (a.reward is not None and a.reward >= 1.0 and (a.task, a.attempt) not in invalid,
                                      (a.task, a.attempt) in invalid) for a in results.attempts}

    before, after = table(parent), table(staging)
    pairs = []
    for key in sorted(k for k in before if k[0] in tasks):
        (parent_pass, parent_broken), staging_pass = before[key], after.get(key, (False, False))[0]
        if not parent_broken:
            pairs.append(Pair(task=key[0], attempt=key[1], parent=parent_pass, staging=staging_pass))
    return pairs


class ExecutionGate:
    """``ExecutionGate(run, work_dir, config).check(proposal, sample)``: paired runs, then :func:`decide`.

    ``run`` is the template for both runs (model, environment, concurrency, turn limit, agent kwargs);
    the gate sets tasks, generation, ``k`` and ``seed``. One check at a time per ``work_dir``."""

    name = GATE

    def __init__(self, run: RunConfig, work_dir: Path, config: ExecutionConfig | None = None, *,
                 slots: asyncio.Semaphore | None = None, budget_path: Path | None = None):
        self.run, self.work_dir = run, work_dir
        self.config = config or ExecutionConfig()
        self.slots, self.budget_path = slots, budget_path

    def _config(self, generation: Path, sample: Sample) -> RunConfig:
        return self.run.model_copy(update={
            "tasks": [*sample.evidence, *sample.anchors], "generation": generation, "k": self.config.k,
            "seed": self.config.run_seed, "dataset": None, "manifest": None})

    async def _run(self, generation: Path, sample: Sample, out: Path) -> RunResults:
        return await execute(self._config(generation, sample), out, slots=self.slots, budget_path=self.budget_path)

    async def check(self, proposal: Proposal, sample: Sample) -> GateVerdict:
        """Run parent and staging on fresh same-seed attempts of ``sample``, then :func:`decide`."""
        root = self.work_dir / (manifest_id(proposal.staging_dir) or proposal.staging_dir.name)
        parent = await self._run(proposal.parent_dir, sample, root / "parent")
        staging = await self._run(proposal.staging_dir, sample, root / "staging")
        evidence = pairs_of(parent, staging, [p.name for p in sample.evidence])
        anchors = pairs_of(parent, staging, [p.name for p in sample.anchors])
        verdict = decide(evidence, anchors, self.config)
        flips: dict[str, list[str]] = {p.task: [] for p in [*evidence, *anchors]}
        for p in [*evidence, *anchors]:
            flips[p.task].append(f"{int(p.parent)}→{int(p.staging)}")
        details = {**verdict.details, "per_task": flips, "runs": {"parent": str(root / "parent"),
                                                                  "staging": str(root / "staging")},
                   "simulated": parent.simulated, "k": self.config.k, "seed": self.config.run_seed}
        verdict = GateVerdict(gate=GATE, passed=verdict.passed, reason=verdict.reason, details=details)
        write_json(root / "verdict.json", verdict.model_dump(mode="json"))
        return verdict

    def bound(self, sample: Sample) -> BoundExecution:
        """This gate with its sample fixed: a :class:`~modularrsi.evolve.gates.Gate`."""
        return BoundExecution(self, sample)


@dataclass(frozen=True)
class BoundExecution:
    """An :class:`ExecutionGate` whose ``check`` takes only the proposal (for :func:`run_chain`)."""

    gate: ExecutionGate
    sample: Sample
    name: str = GATE

    async def check(self, proposal: Proposal) -> GateVerdict:
        return await self.gate.check(proposal, self.sample)
