"""The execution gate: parent and staging run *paired* on a stratified sample, then a stated test decides.

Sample (:class:`Sample`): the direction's supporting tasks (*evidence*: the change claims to help
there) plus *anchors* drawn from the all-pass buckets (the change must not break what works). Both
generations run every sample task ``k`` times with the same run seed, so attempt ``i`` of a task gets
the same attempt seed on both sides (``rollouts.runner.attempt_seed``); a pair is (task, attempt).
Runs go to ``<work_dir>/<staging id>/parent`` and ``…/staging`` and are resumable: re-checking the same
proposal reuses finished attempts.

Decision rule (:func:`decide`), per pair: a *flip* fail→pass counts toward ``b``, pass→fail toward
``c`` (an attempt without a valid reward is a fail; a pair whose *parent* attempt errored is left out,
since it says nothing about the change).

- Evidence: exact one-sided sign test (McNemar's exact test) of b against c,
  ``p = P[X ≥ b], X ~ Binomial(b + c, 1/2)`` (``scipy.stats.binomtest(b, b + c, alternative="greater")``),
  must be ``< alpha`` (default 0.1: samples are small; with no pass→fail flip it takes ``b ≥ 4``, so a
  sample needs at least 4 evidence pairs to be able to pass at all).
- Anchors: at most ``max_anchor_regressions`` (default 0) pass→fail flips.

Both must hold. Only infrastructure problems (a budget stop, a broken task) raise.
"""

from __future__ import annotations

import asyncio
import math
from dataclasses import dataclass
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, model_validator
from scipy.stats import binomtest

from modularrsi.evolve.gates import GateVerdict
from modularrsi.evolve.proposal import Proposal, manifest_id
from modularrsi.rollouts.config import RunConfig
from modularrsi.rollouts.results import RunResults
from modularrsi.rollouts.run import execute
from modularrsi.util.files import write_json

GATE = "execution"


class ExecutionConfig(BaseModel):
    """Thresholds and sampling of the execution gate."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    k: int = Field(default=3, ge=1, description="Attempts per task and side (same seeds on both sides).")
    seed: int = Field(default=0, description="Run seed shared by parent and staging runs.")
    alpha: float = Field(default=0.1, gt=0, lt=1, description="One-sided sign-test level on evidence flips.")
    max_anchor_regressions: int = Field(default=0, ge=0, description="Pass→fail flips allowed on anchors.")


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
    """Flip counts of a set of pairs: b = fail→pass, c = pass→fail."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    pairs: int
    b: int
    c: int

    @classmethod
    def of(cls, pairs: list[Pair]) -> Flips:
        return cls(pairs=len(pairs), b=sum(not p.parent and p.staging for p in pairs),
                   c=sum(p.parent and not p.staging for p in pairs))


def sign_test_p(b: int, c: int) -> float:
    """One-sided exact sign test: P[X ≥ b] for X ~ Binomial(b + c, 1/2); 1.0 when there is no flip."""
    return 1.0 if b + c == 0 else float(binomtest(b, b + c, 0.5, alternative="greater").pvalue)


def min_pairs_needed(alpha: float) -> int:
    """Fewest evidence pairs that can reach p < alpha (all flipping fail→pass, none back)."""
    return max(1, math.floor(math.log(alpha, 0.5)) + 1)


def decide(evidence: list[Pair], anchors: list[Pair], config: ExecutionConfig) -> GateVerdict:
    """The decision rule of the module docstring, on hand-made or measured pairs (a pure function)."""
    ev, an = Flips.of(evidence), Flips.of(anchors)
    p = sign_test_p(ev.b, ev.c)
    details = {"evidence": ev.model_dump(), "anchors": an.model_dump(), "p_value": round(p, 6),
               "alpha": config.alpha, "max_anchor_regressions": config.max_anchor_regressions}
    summary = (f"evidence fail→pass {ev.b}, pass→fail {ev.c} of {ev.pairs} pairs (one-sided sign test p={p:.3g}); "
               f"anchors pass→fail {an.c} of {an.pairs}")
    problems = []
    if p >= config.alpha:
        needed = min_pairs_needed(config.alpha)
        short = f"; {ev.pairs} evidence pairs cannot reach it, {needed} needed" if ev.pairs < needed else ""
        problems.append(f"evidence does not move (p={p:.3g} ≥ alpha={config.alpha:g}{short})")
    if an.c > config.max_anchor_regressions:
        problems.append(f"{an.c} anchor regression(s) > {config.max_anchor_regressions} allowed")
    if problems:
        return GateVerdict.fail(GATE, "; ".join(problems) + f" — {summary}", **details)
    return GateVerdict.ok(GATE, summary, **details)


def pairs_of(parent: RunResults, staging: RunResults, tasks: list[str]) -> list[Pair]:
    """Pairs of ``tasks`` from two runs; pairs whose parent attempt errored without a reward are left out."""
    def table(results: RunResults) -> dict[tuple[str, int], tuple[bool, bool]]:
        return {(a.task, a.attempt): (a.reward is not None and a.reward >= 1.0, a.reward is None and bool(a.error))
                for a in results.attempts}

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
            "seed": self.config.seed, "dataset": None, "manifest": None})

    async def check(self, proposal: Proposal, sample: Sample, parent: RunResults | None = None,
                    parent_run: Path | None = None) -> GateVerdict:
        """``parent``: the parent's results on (at least) the sample's tasks with this gate's ``k`` and
        ``seed`` — an epoch's own sample, reused instead of running the parent again; the attempt seeds
        depend only on run seed, task and index, so the pairs are still same-seed pairs."""
        root = self.work_dir / (manifest_id(proposal.staging_dir) or proposal.staging_dir.name)
        if parent is None:
            parent_run = root / "parent"
            parent = await execute(self._config(proposal.parent_dir, sample), parent_run, slots=self.slots,
                                   budget_path=self.budget_path)
        staging = await execute(self._config(proposal.staging_dir, sample), root / "staging", slots=self.slots,
                                budget_path=self.budget_path)
        evidence = pairs_of(parent, staging, [p.name for p in sample.evidence])
        anchors = pairs_of(parent, staging, [p.name for p in sample.anchors])
        verdict = decide(evidence, anchors, self.config)
        flips = {p.task: [] for p in [*evidence, *anchors]}
        for p in [*evidence, *anchors]:
            flips[p.task].append(f"{int(p.parent)}→{int(p.staging)}")
        details = {**verdict.details, "per_task": flips, "runs": {"parent": str(parent_run or ""),
                                                                  "staging": str(root / "staging")},
                   "simulated": parent.simulated, "k": self.config.k, "seed": self.config.seed}
        verdict = GateVerdict(gate=GATE, passed=verdict.passed, reason=verdict.reason, details=details)
        write_json(root / "verdict.json", verdict.model_dump(mode="json"))
        return verdict

    def bound(self, sample: Sample, parent: RunResults | None = None, parent_run: Path | None = None) -> BoundExecution:
        """This gate with its sample and parent runs fixed: a :class:`~modularrsi.evolve.gates.Gate`."""
        return BoundExecution(self, sample, parent, parent_run)


@dataclass(frozen=True)
class BoundExecution:
    """An :class:`ExecutionGate` whose ``check`` takes only the proposal (for :func:`run_chain`)."""

    gate: ExecutionGate
    sample: Sample
    parent: RunResults | None = None
    parent_run: Path | None = None
    name: str = GATE

    async def check(self, proposal: Proposal) -> GateVerdict:
        return await self.gate.check(proposal, self.sample, parent=self.parent, parent_run=self.parent_run)
