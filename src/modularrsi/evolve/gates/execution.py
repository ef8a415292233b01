"""The execution gate: a replay screen on attempts whose parent outcome is known, then a sequential paired
confirm on fresh attempts; the rules are :mod:`.sequential`'s, their error rates :mod:`.power`'s.

Sample (:class:`Sample`): the direction's supporting tasks (*evidence*: the change claims to help there),
*anchors* from the all-pass buckets (the change must not break what works) and, when the proposal comes
from an epoch, a :class:`ScreenPlan`: that epoch's seed, its failing evidence attempts and its
all-pass anchors, whose parent outcomes the epoch's sample recorded.

1. **Screen** (staging only, cheapest first): the staging generation replays the failing evidence
   attempts and the first attempt of up to ``screen_anchors`` anchors on the epoch's own attempt seeds
   (with a real model through the epoch sample's response cache: the same replies until the
   conversation first differs). Rejected unless it fixes a diagnosed failure and fixes more than it
   breaks. Written to ``<work_dir>/<staging id>/screen``.
2. **Confirm**: rounds of fresh pairs at the gate's own seed (derived from ``seed``, never an epoch's):
   each round ``steer_attempts`` new attempts of every evidence task the screen saw fixed (all evidence
   tasks without a screen) and one of every anchor, on both sides with the same attempt seeds. The
   parent side is run by ``parent_run`` — an evolution shares it between every proposal and lane with
   that parent (``samples/<parent>-s<gate seed>``) — the staging side in ``…/staging``, replaying the
   parent's recorded replies (common random numbers, docs/evolve.md). After each round
   :func:`~.sequential.confirm_rule` accepts, rejects or asks for another; at ``max_rounds`` it stops
   undecided, and the statistic is kept in ``carry_path`` so the same change on the same parent goes on
   from it in a later epoch.

Pairs whose *parent* attempt errored are left out (they say nothing about the change); an invalid
staging attempt is a fail. Only infrastructure problems (a budget stop, a broken task) raise. The runs
are resumable: re-checking the same proposal reuses finished attempts.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, model_validator

from modularrsi.evolve.gates import GateVerdict
from modularrsi.evolve.gates.carried import Carried
from modularrsi.evolve.gates.sequential import (
    ConfirmRule,
    Decision,
    ExecutionDetails,
    Pair,
    Tally,
    confirm_rule,
    decide,
    screen_rule,
)
from modularrsi.evolve.proposal import Proposal, manifest_id
from modularrsi.evolve.seeds import derived_seed
from modularrsi.models.settings import is_sim
from modularrsi.rollouts.config import RunConfig
from modularrsi.rollouts.results import RunResults
from modularrsi.rollouts.run import execute
from modularrsi.util.files import write_json

GATE = "execution"
__all__ = ["BoundExecution", "ExecutionConfig", "ExecutionGate", "Pair", "Sample", "ScreenPlan", "decide"]
ParentRun = Callable[[Path, RunConfig], Awaitable[tuple[Path, RunResults]]]


class ExecutionConfig(BaseModel):
    """Settings of the execution gate. ``None`` means the default for the agent model: ``sim`` runs are
    cheap and coupled by their seed, real-model runs are dear (see ``--print-config``)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    k: int = Field(default=3, ge=1, description="Attempts per task of the epoch sample (set by the evolution).")
    seed: int = Field(default=0, description="Seed the gate's own run seed derives from (fresh attempts, never "
                      "an epoch sample's).")
    alpha: float | None = Field(default=None, gt=0, lt=1, description="Level of the sequential confirm: accepted "
                                "when the likelihood ratio reaches 1/alpha (default 0.2 for sim, 0.1 otherwise).")
    beta: float = Field(default=0.2, gt=0, lt=1, description="Rejected when the likelihood ratio falls to "
                        "beta/(1-alpha) (Wald's lower bound).")
    p1: float = Field(default=0.9, gt=0.5, lt=1, description="The alternative: share of discordant pairs that "
                      "are fixes for a change that helps.")
    max_rounds: int | None = Field(default=None, ge=1, description="Cap of confirm rounds; then undecided, the "
                                   "statistic carried (default 6 for sim, 4 otherwise).")
    min_rounds: int = Field(default=2, ge=1, description="Rounds before an acceptance (the anchors' harm side "
                            "is tested near the decision boundary, not skipped by an early stop).")
    quiet_rounds: int | None = Field(default=3, ge=1, description="Undecided (statistic carried) after this many "
                                     "rounds in a row without a discordant pair; None: run to the cap.")
    min_improved_tasks: int | None = Field(default=None, ge=1, description="Tasks with more fixes than breaks "
                                           "an acceptance needs (default 1 for sim, 2 otherwise).")
    steer_attempts: int = Field(default=3, ge=1, description="Fresh attempts per round of each evidence task "
                                "the screen saw fixed (anchors get one).")
    anchor_weight: float = Field(default=2.0, ge=1, description="An anchor break counts this many times "
                                 "against (anchors stand for the pool outside the evidence).")
    screen: bool = Field(default=True, description="Replay screen before the confirm (needs the epoch's sample).")
    screen_anchors: int = Field(default=4, ge=0, description="All-pass anchors the screen replays one attempt of.")
    second_alpha_share: float = Field(default=0.5, gt=0, le=1, description="Racing: the runner-up candidate "
                                      "of a direction is confirmed at this share of alpha.")

    @property
    def run_seed(self) -> int:
        """The seed of both confirm sides: fresh attempts, never those of a sample run at ``seed``."""
        return derived_seed(self.seed, "execution-gate")

    def rule(self, simulated: bool, alpha_share: float = 1.0) -> ConfirmRule:
        """The confirm's thresholds with the defaults of a ``sim`` or a real agent model filled in."""
        alpha = self.alpha if self.alpha is not None else (0.2 if simulated else 0.1)
        return ConfirmRule(alpha=alpha * alpha_share, beta=self.beta, p1=self.p1,
                           max_rounds=self.max_rounds or (6 if simulated else 4), min_rounds=self.min_rounds,
                           min_improved_tasks=self.min_improved_tasks or (1 if simulated else 2),
                           anchor_weight=self.anchor_weight, quiet_rounds=self.quiet_rounds)


class ScreenPlan(BaseModel):
    """What the replay screen replays: the epoch's failing evidence attempts and its all-pass anchors."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    seed: int = Field(description="The epoch sample's run seed (its attempt seeds are replayed).")
    failing: dict[str, list[int]] = Field(description="Evidence task → its failed attempt indices in the sample.")
    anchors: list[Path] = Field(default_factory=list, description="All-pass tasks of the sample (attempt 0 replayed).")
    replay: Path | None = Field(default=None, description="The sample's response cache (real models).")


class Sample(BaseModel):
    """The tasks to run: evidence (the direction's supporting tasks), anchors (all-pass buckets), and the
    screen's plan when the proposal comes from an epoch."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    evidence: list[Path] = Field(min_length=1, description="Task directories of the supporting tasks.")
    anchors: list[Path] = Field(default_factory=list, description="Task directories of all-pass anchors.")
    screen: ScreenPlan | None = None

    @model_validator(mode="after")
    def _disjoint(self) -> Sample:
        both = {p.name for p in self.evidence} & {p.name for p in self.anchors}
        if both:
            raise ValueError(f"task(s) both evidence and anchor: {', '.join(sorted(both))}")
        return self


def pairs_of(parent: RunResults, staging: RunResults, tasks: list[str]) -> list[Pair]:
    """Pairs of ``tasks`` from two runs; pairs whose parent attempt is invalid are left out (an invalid staging
    attempt is a fail: a change that makes attempts crash is worse)."""
    def table(results: RunResults) -> dict[tuple[str, int], tuple[bool, bool]]:
        invalid = {(a.task, a.attempt) for a in results.invalid()}
        return {(a.task, a.attempt): (a.reward is not None and a.reward >= 1.0 and (a.task, a.attempt) not in invalid,
                                      (a.task, a.attempt) in invalid) for a in results.attempts}

    before, after = table(parent), table(staging)
    pairs = []
    for key in sorted(k for k in before if k[0] in tasks and k in after):
        (parent_pass, parent_broken), staging_pass = before[key], after[key][0]
        if not parent_broken:
            pairs.append(Pair(task=key[0], attempt=key[1], parent=parent_pass, staging=staging_pass))
    return pairs


def _flips(pairs: list[Pair]) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for p in pairs:
        out.setdefault(p.task, []).append(f"{int(p.parent)}→{int(p.staging)}")
    return out


class ExecutionGate:
    """``ExecutionGate(run, work_dir, config).check(proposal, sample)``: screen, then confirm.

    ``run`` is the template of every run (model, environment, concurrency, turn limit, agent kwargs); the
    gate sets tasks, generation, attempts and seed. ``parent_run(generation, config)`` runs the parent
    side (default: into ``<work_dir>/<staging id>/parent``); ``carry_path`` keeps undecided statistics."""

    name = GATE

    def __init__(self, run: RunConfig, work_dir: Path, config: ExecutionConfig | None = None, *,
                 slots: asyncio.Semaphore | None = None, budget_path: Path | None = None,
                 parent_run: ParentRun | None = None, carry_path: Path | None = None):
        self.run, self.work_dir = run, work_dir
        self.config = config or ExecutionConfig()
        self.slots, self.budget_path = slots, budget_path
        self.parent_run, self.carry_path = parent_run, carry_path

    @property
    def simulated(self) -> bool:
        return is_sim(self.run.model)

    def root(self, proposal: Proposal) -> Path:
        return self.work_dir / (manifest_id(proposal.staging_dir) or proposal.staging_dir.name)

    def _config(self, generation: Path, attempts: dict[Path, list[int]], seed: int,
                replay: Path | None = None) -> RunConfig:
        return self.run.model_copy(update={
            "tasks": sorted(attempts), "generation": generation, "k": 1 + max(max(a) for a in attempts.values()),
            "attempts": {t.name: sorted(a) for t, a in attempts.items()}, "seed": seed, "dataset": None,
            "manifest": None, "replay_cache": replay})

    async def _execute(self, config: RunConfig, out: Path) -> RunResults:
        return await execute(config, out, slots=self.slots, budget_path=self.budget_path, checked=True)

    async def _parent(self, config: RunConfig, proposal: Proposal) -> tuple[Path, RunResults]:
        if self.parent_run is not None:
            return await self.parent_run(proposal.parent_dir, config)
        out = self.root(proposal) / "parent"
        return out, await self._execute(config, out)

    # ------------------------------------------------------------------------------------------- screen
    async def screen(self, proposal: Proposal, sample: Sample, known: RunResults) -> GateVerdict:
        """The replay screen (``known``: the epoch sample the plan's parent outcomes come from)."""
        plan = sample.screen
        assert plan is not None
        dirs = {p.name: p for p in [*sample.evidence, *plan.anchors]}
        attempts = {dirs[t]: list(a) for t, a in plan.failing.items() if a and t in dirs}
        anchors = [p for p in plan.anchors][: self.config.screen_anchors]
        attempts.update({p: [0] for p in anchors})
        out = self.root(proposal) / "screen"
        staging = await self._execute(self._config(proposal.staging_dir, attempts, plan.seed, plan.replay), out)
        wanted = {(t.name, i) for t, ids in attempts.items() for i in ids}
        parent_view = known.model_copy(update={"attempts": [a for a in known.attempts
                                                            if (a.task, a.attempt) in wanted]})
        pairs = pairs_of(parent_view, staging, [t.name for t in attempts])
        result = screen_rule(pairs)
        details = {"stage": "screen", **result.model_dump(), "per_task": _flips(pairs), "run": str(out),
                   "seed": plan.seed, "simulated": staging.simulated}
        summary = f"screen: fixed {result.fixes} of the failing evidence attempts, broke {result.breaks} anchor " \
                  f"attempt(s) of {result.attempts} replayed"
        if result.passed:
            return GateVerdict.ok(GATE, summary, **details)
        why = "fixes no diagnosed failure" if result.fixes == 0 else "breaks as much as it fixes"
        return GateVerdict.fail(GATE, f"{why} — {summary}", **details)

    # ------------------------------------------------------------------------------------------ confirm
    def _carried(self, proposal: Proposal) -> Tally | None:
        return Carried(self.carry_path).get(manifest_id(proposal.parent_dir), manifest_id(proposal.staging_dir))

    async def confirm(self, proposal: Proposal, sample: Sample, steer: list[str] | None = None,
                      alpha_share: float = 1.0) -> GateVerdict:
        """Rounds of fresh pairs on ``steer`` (default: every evidence task) and the anchors until decided."""
        c, rule = self.config, self.config.rule(self.simulated, alpha_share)
        evidence = [p for p in sample.evidence if steer is None or p.name in steer]
        anchors = [p.name for p in sample.anchors]
        carried = self._carried(proposal)
        start = (carried.carried + carried.rounds) if carried else 0
        root = self.root(proposal)
        pairs: list[Pair] = []
        decision: Decision = "continue"
        tally = carried.resumed() if carried else Tally()
        runs: dict[str, str] = {}
        while decision == "continue":
            r = start + tally.rounds
            attempts = {p: list(range(r * c.steer_attempts, (r + 1) * c.steer_attempts)) for p in evidence}
            attempts.update({p: [r] for p in sample.anchors})
            config = self._config(proposal.parent_dir, attempts, c.run_seed)
            parent_dir, parent = await self._parent(config, proposal)
            staging = await self._execute(
                self._config(proposal.staging_dir, attempts, c.run_seed, parent_dir / "cache.sqlite"), root / "staging")
            wanted = {(t.name, i) for t, ids in attempts.items() for i in ids}
            round_pairs = [p.model_copy(update={"round": r}) for p in
                           pairs_of(parent, staging, [t.name for t in attempts]) if (p.task, p.attempt) in wanted]
            pairs.extend(round_pairs)
            tally = tally.add(round_pairs, anchors)
            decision = confirm_rule(tally, rule)
            runs = {"parent": str(parent_dir), "staging": str(root / "staging")}
        if decision == "undecided":  # a decided change's statistic goes once its record is written
            Carried(self.carry_path).keep(manifest_id(proposal.parent_dir), manifest_id(proposal.staging_dir), tally)
        return self._verdict(decision, tally, rule, pairs, anchors, runs, carried)

    def _verdict(self, decision: Decision, tally: Tally, rule: ConfirmRule, pairs: list[Pair], anchors: list[str],
                 runs: dict[str, str], carried: Tally | None) -> GateVerdict:
        llr = tally.log_lr(rule.p1, rule.anchor_weight)
        details = {"stage": "confirm", "decision": decision, **tally.model_dump(),
                   "improved_tasks": tally.improved_tasks, "log_lr": round(llr, 6),
                   "accept_at": round(rule.accept_at, 6), "reject_at": round(rule.reject_at, 6),
                   "rule": rule.model_dump(), "anchor_tasks": anchors, "per_task": _flips(pairs),
                   "pairs_detail": [p.model_dump() for p in pairs], "runs": runs, "simulated": self.simulated,
                   "seed": self.config.run_seed, "carried_from": carried.model_dump() if carried else None,
                   "test": "sequential probability ratio test over discordant attempt pairs"}
        summary = (f"confirm: {tally.b} fix(es), {tally.c} break(s) ({tally.anchor_c} on anchors) in {tally.pairs} "
                   f"pairs over {tally.rounds} round(s); {tally.improved_tasks} task(s) improved; "
                   f"log LR {llr:.2f} (accept ≥ {rule.accept_at:.2f}, reject ≤ {rule.reject_at:.2f})")
        if decision == "accept":
            return GateVerdict.ok(GATE, summary, **details)
        still = (f"undecided: no discordant pair in {tally.quiet} rounds in a row" if tally.rounds < rule.max_rounds
                 else f"undecided after {rule.max_rounds} rounds")
        why = {"reject": "evidence against the change", "undecided": f"{still} (statistic kept for the next epoch)"
               }[decision]
        return GateVerdict.fail(GATE, f"{why} — {summary}", **details)

    async def check(self, proposal: Proposal, sample: Sample, known: RunResults | None = None) -> GateVerdict:
        """Screen (when the sample has a plan and ``known`` is given), then confirm steered to what it fixed."""
        steer = None
        if self.config.screen and sample.screen is not None and known is not None:
            screened = await self.screen(proposal, sample, known)
            if not screened.passed:
                return self._record(proposal, screened)
            steer = ExecutionDetails.model_validate(screened.details).fixed_tasks
            confirmed = await self.confirm(proposal, sample, steer)
            confirmed = confirmed.model_copy(update={"details": {**confirmed.details, "screen": screened.details}})
            return self._record(proposal, confirmed)
        return self._record(proposal, await self.confirm(proposal, sample))

    def _record(self, proposal: Proposal, verdict: GateVerdict) -> GateVerdict:
        write_json(self.root(proposal) / "verdict.json", verdict.model_dump(mode="json"))
        return verdict

    def bound(self, sample: Sample, known: RunResults | None = None) -> BoundExecution:
        """This gate with its sample fixed: a :class:`~modularrsi.evolve.gates.Gate`."""
        return BoundExecution(self, sample, known)


@dataclass(frozen=True)
class BoundExecution:
    """An :class:`ExecutionGate` whose ``check`` takes only the proposal (for :func:`run_chain`)."""

    gate: ExecutionGate
    sample: Sample
    known: RunResults | None = None
    name: str = GATE

    async def check(self, proposal: Proposal) -> GateVerdict:
        return await self.gate.check(proposal, self.sample, self.known)

    def screen_stage(self) -> ScreenStage:
        """The screen alone, as a gate (racing screens every candidate before confirming the best)."""
        return ScreenStage(self)


@dataclass(frozen=True)
class ScreenStage:
    """The replay screen of a :class:`BoundExecution`; passes without running when there is nothing to
    replay (no epoch sample, or ``screen`` off), so the confirm then covers every evidence task."""

    bound: BoundExecution
    name: str = GATE

    async def check(self, proposal: Proposal) -> GateVerdict:
        b = self.bound
        if not b.gate.config.screen or b.sample.screen is None or b.known is None:
            return GateVerdict.ok(GATE, "no replay screen (no epoch sample to replay)", stage="screen",
                                  fixes=0, breaks=0, fixed_tasks=None)
        return await b.gate.screen(proposal, b.sample, b.known)

