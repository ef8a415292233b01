"""The execution gate's two decision rules, pure functions of paired outcomes and settings.

A *pair* is one (task, attempt) run by the parent and by the staging generation on the same attempt seed;
it is *discordant* when exactly one side passed: a fix (``b``, fail → pass) or a break (``c``, pass → fail).

**Replay screen** (:func:`screen_rule`) — the staging generation alone replays attempts whose parent
outcome is already known from the epoch's sample: the direction's *failing* evidence attempts (the parent
failed each) and one attempt of each of a few all-pass anchors (the parent passed each). It passes when it
fixes at least one diagnosed failure and fixes more than it breaks. Those attempts were chosen *because*
the parent failed them, so the screen is biased towards a change (regression to the mean) and never
decides acceptance: it only rejects early, and it picks the tasks the confirm is steered to.

**Sequential paired confirm** (:class:`Tally`, :func:`confirm_rule`) — fresh gate seeds, one round at a
time, both sides. Under "the change helps nowhere" (for every pair, P(staging passes) ≤ P(parent passes)),
P(fix) ≤ P(break) for every pair whatever the coupling of its two sides (they share a seed, and with a
real model the replayed replies of :mod:`modularrsi.models.cache`), so conditionally on being discordant a
pair is a fix with probability at most ½, independently of the pairs before it. Wald's likelihood ratio
of "a discordant pair is a fix with probability ``p1``" against ½,

    LR = (2·p1)^b · (2·(1 − p1))^c,

is then a non-negative supermartingale with LR₀ = 1, and by Ville's inequality P(LR ever ≥ 1/α) ≤ α: the
test may look after every round, stop early, be steered to some tasks and be continued in a later epoch
(:attr:`Tally.carried`) without inflating its level. Evidence and anchors enter the one statistic (an
anchor break is a ``c`` like any other). Accepted at LR ≥ 1/α *and* with at least ``min_improved_tasks``
tasks whose fixes outnumber their breaks (one task's repeated flips are not several tasks' evidence);
rejected when LR ≤ β/(1 − α) (Wald's lower bound: evidence for ``p1`` is unlikely to come); undecided when
the rounds reach the cap, or when ``quiet_rounds`` rounds in a row gave no discordant pair (a change that
moves nothing on fresh pairs is not paid for further now; its statistic is carried like any undecided one).
Stopping without accepting, for whatever reason, can only lower the chance of an acceptance, so neither
stop touches the level. Operating characteristics: :mod:`.power`.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Literal, Protocol

from pydantic import BaseModel, ConfigDict, Field

Decision = Literal["accept", "reject", "continue", "undecided"]


class PairLike(Protocol):
    task: str
    parent: bool
    staging: bool


class ScreenResult(BaseModel):
    """What the replay screen saw: fixes of failing evidence attempts, breaks of passing anchor attempts."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    attempts: int
    fixes: int
    breaks: int
    fixed_tasks: list[str] = Field(description="Tasks with a fixed attempt (the confirm is steered to them).")
    broken_tasks: list[str]

    @property
    def passed(self) -> bool:
        return self.fixes >= 1 and self.fixes > self.breaks

    @property
    def score(self) -> tuple[int, int]:
        """Ranks screened candidates of one direction (racing): net fixes, then fixes."""
        return self.fixes - self.breaks, self.fixes


def screen_rule(pairs: Iterable[PairLike]) -> ScreenResult:
    """The screen's tally of replayed attempts (parent outcome from the epoch sample, staging replayed)."""
    pairs = list(pairs)
    fixed = [p.task for p in pairs if not p.parent and p.staging]
    broken = [p.task for p in pairs if p.parent and not p.staging]
    return ScreenResult(attempts=len(pairs), fixes=len(fixed), breaks=len(broken),
                        fixed_tasks=sorted(set(fixed)), broken_tasks=sorted(set(broken)))


class Tally(BaseModel):
    """The confirm's running statistic: fixes ``b``, breaks ``c``, net fixes per task, rounds run.

    ``carried`` counts the rounds taken over from an earlier, undecided confirm of the same change on the
    same parent (the statistic is anytime-valid, so it may go on with fresh pairs)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    b: int = 0
    c: int = 0
    anchor_c: int = Field(default=0, description="Of ``c``, the breaks on anchors (weighted by the rule).")
    anchor_pairs: int = 0
    net: dict[str, int] = Field(default_factory=dict, description="Per task: fixes minus breaks.")
    pairs: int = 0
    rounds: int = 0
    carried: int = 0
    quiet: int = Field(default=0, description="Rounds in a row, up to the last, without a discordant pair.")

    def add(self, pairs: Iterable[PairLike], anchors: Iterable[str] = ()) -> Tally:
        """This tally with one more round of pairs (``anchors``: the anchor tasks' names)."""
        anchors = set(anchors)
        pairs = list(pairs)
        b, c, anchor_c, n, net = self.b, self.c, self.anchor_c, self.pairs, dict(self.net)
        anchor_pairs = self.anchor_pairs
        for p in pairs:
            n += 1
            anchor_pairs += p.task in anchors
            if p.parent != p.staging:
                b, c = b + p.staging, c + p.parent
                anchor_c += p.parent and p.task in anchors
                net[p.task] = net.get(p.task, 0) + (1 if p.staging else -1)
        moved = any(p.parent != p.staging for p in pairs)
        return self.model_copy(update={"b": b, "c": c, "anchor_c": anchor_c, "anchor_pairs": anchor_pairs,
                                       "pairs": n, "net": net, "rounds": self.rounds + 1,
                                       "quiet": 0 if moved else self.quiet + 1})

    def resumed(self) -> Tally:
        """This tally carried into a new confirm: its rounds no longer count against the new cap."""
        return self.model_copy(update={"carried": self.carried + self.rounds, "rounds": 0, "quiet": 0})

    @property
    def improved_tasks(self) -> int:
        return sum(v > 0 for v in self.net.values())

    def log_lr(self, p1: float, anchor_weight: float = 1.0) -> float:
        """log LR; an anchor break counts ``anchor_weight`` times (≥ 1 keeps the supermartingale)."""
        breaks = self.c - self.anchor_c + anchor_weight * self.anchor_c
        return self.b * math.log(2 * p1) + breaks * math.log(2 * (1 - p1))


class ConfirmRule(BaseModel):
    """The confirm's thresholds, resolved (see :class:`~.execution.ExecutionConfig` for the defaults)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    alpha: float = Field(gt=0, lt=1)
    beta: float = Field(gt=0, lt=1)
    p1: float = Field(gt=0.5, lt=1)
    max_rounds: int = Field(ge=1)
    min_improved_tasks: int = Field(ge=1)
    anchor_weight: float = Field(default=1.0, ge=1)
    min_rounds: int = Field(default=1, ge=1)
    quiet_rounds: int | None = Field(default=None, ge=1, description="Undecided after this many rounds in a row "
                                     "without a discordant pair (None: only the cap stops it undecided).")

    @property
    def accept_at(self) -> float:
        return math.log(1 / self.alpha)

    @property
    def reject_at(self) -> float:
        return math.log(self.beta / (1 - self.alpha))


def confirm_rule(tally: Tally, rule: ConfirmRule) -> Decision:
    """Accept, reject, go on with another round, or stop undecided (at the cap, or after ``quiet_rounds``
    rounds without a discordant pair): a reject whose statistic is carried."""
    llr = tally.log_lr(rule.p1, rule.anchor_weight)
    if (llr >= rule.accept_at and tally.improved_tasks >= rule.min_improved_tasks
            and tally.rounds + tally.carried >= rule.min_rounds):
        return "accept"
    if llr <= rule.reject_at:
        return "reject"
    quiet = rule.quiet_rounds is not None and tally.quiet >= rule.quiet_rounds
    return "undecided" if tally.rounds >= rule.max_rounds or quiet else "continue"


def rounds_needed(rule: ConfirmRule) -> int:
    """Fewest discordant pairs, all fixes, that reach the acceptance bound: ⌈log(1/α) / log(2·p1)⌉."""
    return math.ceil(rule.accept_at / math.log(2 * rule.p1) - 1e-12)


class Pair(BaseModel):
    """One (task, attempt) run by both generations on the same seed; ``round``: the confirm round."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    task: str
    attempt: int
    parent: bool
    staging: bool
    round: int = 0


class ExecutionDetails(BaseModel):
    """An execution verdict's ``details`` as the evolution reads them back (from the verdict, or from
    the history): typed, never parsed from the display strings. What else a verdict
    records (``per_task`` flips as ``"0→1"``, the rule, the runs) is for people and the report."""

    model_config = ConfigDict(extra="allow", frozen=True)

    stage: Literal["screen", "confirm", "race"] | None = Field(default=None, description="race: a screened "
                                                               "candidate left out after another was confirmed.")
    decision: Decision | None = Field(default=None, description="confirm: accept, reject or undecided.")
    fixes: int = Field(default=0, description="screen: failing evidence attempts the change fixed.")
    breaks: int = Field(default=0, description="screen: passing anchor attempts it broke.")
    fixed_tasks: list[str] | None = Field(default=None, description="screen: tasks with a fixed attempt (the "
                                          "confirm is steered to them); None: no replay, every evidence task.")
    pairs_detail: list[Pair] = Field(default_factory=list, description="confirm: every fresh pair it ran.")

    @classmethod
    def of(cls, verdict: object) -> ExecutionDetails | None:
        """The details of an execution gate's verdict (None for another gate's)."""
        if getattr(verdict, "gate", None) != "execution":
            return None
        return cls.model_validate(verdict.details)  # type: ignore[attr-defined]

    def task_outcomes(self) -> dict[str, tuple[int, int]]:
        """Per task: (pairs the changed generation passed, pairs), over the confirm's fresh pairs."""
        out: dict[str, tuple[int, int]] = {}
        for p in self.pairs_detail:
            passed, pairs = out.get(p.task, (0, 0))
            out[p.task] = (passed + p.staging, pairs + 1)
        return out


def decide(pairs: list[Pair], anchors: list[str], rule: ConfirmRule, carried: Tally | None = None
           ) -> tuple[Decision, Tally]:
    """The confirm's decision on measured pairs, round by round from ``carried`` (a pure function): the
    first round whose tally :func:`confirm_rule` does not continue decides."""
    tally = carried.resumed() if carried else Tally()
    decision: Decision = "continue"
    for r in sorted({p.round for p in pairs}):
        tally = tally.add([p for p in pairs if p.round == r], anchors)
        decision = confirm_rule(tally, rule)
        if decision != "continue":
            break
    return decision, tally
