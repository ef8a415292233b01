"""Routing buckets: where each task of one epoch in one lane goes next (the paper's Table 8, Fig. 3).

Rules, per task, over this epoch's attempts and the task's history in the Trajectory Memory (earlier
epochs of the same lane only). *Valid* attempts are those without an infrastructure error
(:func:`modularrsi.evolve.memory.infra_error`: Harbor's error policy says the reward is invalid —
environment start, sandbox build, verifier timeout or missing reward file, model API errors —, the
model endpoint failed or the budget ran out, or no reward came without any exception). In order:

1. ``infra`` — no valid attempt. Excluded from diagnosis and from the pair rates.
2. all valid attempts pass: ``all_pass_wasteful`` when their mean steps exceed ``wasteful_ratio`` × the
   *reference*: the task's best (lowest) mean steps of passing attempts in an earlier epoch, or — when
   it never passed before (first epoch) — the median over this epoch's tasks of the mean steps of their
   passing attempts (a pool-relative judgement: long tasks look wasteful until they have a history).
   Otherwise ``all_pass_efficient``.
3. some pass, some fail: ``mixed`` (a same-epoch contrastive pair).
4. all fail —
   ``unreachable`` when the task never passed in an earlier epoch and no attempt made progress: every
   attempt acted (≥ 1 turn) but executed at most ``unreachable_max_state_changes`` state-changing
   batches (it only produced unparseable replies, waited or looked around) — nothing to contrast;
   ``stuck_fail`` when its last ``stuck_epochs`` sampled epochs, this one included, had no pass: it
   cools down for ``cooldown_epochs`` epochs (see :func:`in_cooldown`);
   ``fixable_fail`` otherwise.

Cooldown (:func:`in_cooldown`, for the sampler of the next epochs) is decided from the history alone:
a task whose last ``stuck_epochs`` sampled epochs had no pass — stuck, or unreachable that long — is
skipped for ``cooldown_epochs`` epochs, and again after each further failing epoch.

An all-fail task is *pairable through memory* when an earlier epoch has a passing attempt
(:meth:`TrajectoryMemory.past_pass`). Over the non-infra tasks, the shares with a same-epoch pair, a
memory pair, no pair (all fail) and all passing sum to 1 — the paper's Fig. 3 numbers.
"""

from __future__ import annotations

from collections import defaultdict
from enum import StrEnum
from statistics import mean, median
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from modularrsi.evolve.memory import AttemptRecord, EpochStats, TrajectoryMemory


class Bucket(StrEnum):
    ALL_PASS_EFFICIENT = "all_pass_efficient"
    ALL_PASS_WASTEFUL = "all_pass_wasteful"
    MIXED = "mixed"
    FIXABLE_FAIL = "fixable_fail"
    STUCK_FAIL = "stuck_fail"
    UNREACHABLE = "unreachable"
    INFRA = "infra"


ALL_PASS = (Bucket.ALL_PASS_EFFICIENT, Bucket.ALL_PASS_WASTEFUL)
ALL_FAIL = (Bucket.FIXABLE_FAIL, Bucket.STUCK_FAIL, Bucket.UNREACHABLE)


class BucketConfig(BaseModel):
    """Thresholds of the routing rules (module docstring), each validated once."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    wasteful_ratio: float = Field(default=1.5, gt=1.0, description="An all-pass task is wasteful when its mean "
                                  "steps exceed this × its reference (best earlier mean, else pool median).")
    stuck_epochs: int = Field(default=2, ge=1, description="Consecutive sampled epochs without a pass (this one "
                              "included) that make an all-fail task stuck.")
    cooldown_epochs: int = Field(default=1, ge=0, description="Epochs a stuck task is not sampled afterwards.")
    unreachable_max_state_changes: int = Field(default=0, ge=0, description="An attempt made no progress when it "
                                               "executed at most this many state-changing command batches.")


class TaskRoute(BaseModel):
    """One task's bucket in one epoch, why, and the numbers behind it."""

    model_config = ConfigDict(frozen=True)

    task: str
    bucket: Bucket
    reason: str
    attempts: int = Field(description="Attempts this epoch, infra ones included.")
    valid: int
    passes: int
    mean_steps: float | None = Field(default=None, description="Mean steps of the valid attempts.")
    reference_steps: float | None = Field(default=None, description="Wasteful reference (all-pass tasks only).")
    pair_source: Literal["same-epoch", "memory"] | None = None
    past_pass_epoch: int | None = Field(default=None, description="Epoch of the memory partner, if any.")
    cooldown_until: int | None = Field(default=None, description="Stuck tasks: last epoch they are skipped.")


class EpochBuckets(BaseModel):
    """All tasks of one lane's epoch. ``shares`` are over all tasks; the rates over non-infra tasks."""

    model_config = ConfigDict(frozen=True)

    lane: str
    epoch: int
    config: BucketConfig
    tasks: list[TaskRoute]
    shares: dict[str, float]
    diagnosable: int
    same_epoch_pair_rate: float
    memory_pair_rate: float
    unpaired_fail_rate: float
    all_pass_rate: float

    def in_bucket(self, *buckets: Bucket) -> list[TaskRoute]:
        return [t for t in self.tasks if t.bucket in buckets]


def _no_progress(attempt: AttemptRecord, config: BucketConfig) -> bool:
    signals = attempt.signals
    return signals.turns > 0 and signals.state_changes <= config.unreachable_max_state_changes


def _stuck_run(history: list[EpochStats], config: BucketConfig) -> bool:
    """True when the last ``stuck_epochs`` sampled epochs of ``history`` (valid attempts only) had no pass."""
    sampled = [h for h in history if h.valid]
    last = sampled[-config.stuck_epochs:]
    return len(last) == config.stuck_epochs and all(h.passes == 0 for h in last)


def in_cooldown(history: list[EpochStats], epoch: int, config: BucketConfig) -> bool:
    """Whether a task should be skipped when sampling ``epoch``: its last sampled epoch before ``epoch``
    ended a run of ``stuck_epochs`` epochs without a pass, at most ``cooldown_epochs`` epochs ago."""
    earlier = [h for h in history if h.epoch < epoch and h.valid]
    return bool(earlier) and _stuck_run(earlier, config) and epoch - earlier[-1].epoch <= config.cooldown_epochs


def _all_pass(task: str, valid: list[AttemptRecord], history: list[EpochStats], pool_median: float | None,
              config: BucketConfig) -> TaskRoute:
    steps = mean(a.steps for a in valid)
    best = min((h for h in history if h.pass_mean_steps is not None), key=lambda h: h.pass_mean_steps or 0,
               default=None)
    reference = best.pass_mean_steps if best else pool_median
    source = f"best earlier mean (epoch {best.epoch})" if best else "pool median this epoch"
    wasteful = reference is not None and steps > config.wasteful_ratio * reference
    bucket = Bucket.ALL_PASS_WASTEFUL if wasteful else Bucket.ALL_PASS_EFFICIENT
    reason = (f"{len(valid)}/{len(valid)} passed; mean steps {steps:.1f} {'>' if wasteful else '≤'} "
              f"{config.wasteful_ratio} × {reference:.1f} ({source})" if reference is not None
              else f"{len(valid)}/{len(valid)} passed; no reference steps")
    return TaskRoute(task=task, bucket=bucket, reason=reason, attempts=0, valid=len(valid), passes=len(valid),
                     mean_steps=steps, reference_steps=reference)


def _all_fail(task: str, valid: list[AttemptRecord], history: list[EpochStats], epoch: int,
              past: AttemptRecord | None, config: BucketConfig) -> TaskRoute:
    never = all(h.passes == 0 for h in history)
    fields = {"task": task, "attempts": 0, "valid": len(valid), "passes": 0, "mean_steps": mean(a.steps for a in valid),
              "pair_source": "memory" if past else None, "past_pass_epoch": past.epoch if past else None}
    if never and all(_no_progress(a, config) for a in valid):
        return TaskRoute(bucket=Bucket.UNREACHABLE, reason=f"0/{len(valid)} passed, never passed before, and no "
                         f"attempt made progress (≤ {config.unreachable_max_state_changes} state-changing "
                         "batches each)", **fields)
    if _stuck_run([*history, EpochStats(epoch=epoch, attempts=len(valid), valid=len(valid), passes=0,
                                        mean_steps=None, pass_mean_steps=None)], config):
        until = epoch + config.cooldown_epochs
        return TaskRoute(bucket=Bucket.STUCK_FAIL, reason=f"0/{len(valid)} passed; no pass in the last "
                         f"{config.stuck_epochs} sampled epochs: cooling down until epoch {until}",
                         cooldown_until=until, **fields)
    partner = f"; memory pass from epoch {past.epoch}" if past else "; no earlier pass to pair with"
    return TaskRoute(bucket=Bucket.FIXABLE_FAIL, reason=f"0/{len(valid)} passed{partner}", **fields)


def _route_task(task: str, attempts: list[AttemptRecord], history: list[EpochStats], memory: TrajectoryMemory,
                pool_median: float | None, config: BucketConfig) -> TaskRoute:
    first = attempts[0]
    valid = [a for a in attempts if a.infra_error is None]
    passes = sum(a.passed for a in valid)
    if not valid:
        return TaskRoute(task=task, bucket=Bucket.INFRA, attempts=len(attempts), valid=0, passes=0,
                         reason=f"all {len(attempts)} attempts hit infrastructure errors, e.g. {first.infra_error}")
    if passes == len(valid):
        route = _all_pass(task, valid, history, pool_median, config)
    elif passes:
        route = TaskRoute(task=task, bucket=Bucket.MIXED, reason=f"{passes}/{len(valid)} passed: same-epoch pair",
                          attempts=0, valid=len(valid), passes=passes, mean_steps=mean(a.steps for a in valid),
                          pair_source="same-epoch")
    else:
        past = memory.past_pass(first.lane, task, first.epoch)
        route = _all_fail(task, valid, history, first.epoch, past, config)
    infra = len(attempts) - len(valid)
    reason = route.reason + (f" ({infra} infra attempt(s) excluded)" if infra else "")
    return route.model_copy(update={"attempts": len(attempts), "reason": reason})


def _pool_median(by_task: dict[str, list[AttemptRecord]]) -> float | None:
    means = [mean(steps) for steps in ([a.steps for a in attempts if a.passed and a.infra_error is None]
                                       for attempts in by_task.values()) if steps]
    return median(means) if means else None


def route(epoch_attempts: list[AttemptRecord], memory: TrajectoryMemory,
          config: BucketConfig | None = None) -> EpochBuckets:
    """Bucket every task of one lane's epoch (all attempts must share lane and epoch)."""
    config = config or BucketConfig()
    if not epoch_attempts:
        raise ValueError("route needs the attempts of one epoch; got none")
    keys = {(a.lane, a.epoch) for a in epoch_attempts}
    if len(keys) > 1:
        raise ValueError(f"route needs one lane and epoch; got {len(keys)}: {sorted(keys)[:3]}")
    lane, epoch = keys.pop()
    by_task: dict[str, list[AttemptRecord]] = defaultdict(list)
    for attempt in sorted(epoch_attempts, key=lambda a: (a.task, a.attempt)):
        by_task[attempt.task].append(attempt)
    pool = _pool_median(by_task)
    tasks = [_route_task(task, attempts, [h for h in memory.task_history(lane, task) if h.epoch < epoch],
                         memory, pool, config) for task, attempts in by_task.items()]
    return summarise(lane, epoch, tasks, config)


def summarise(lane: str, epoch: int, tasks: list[TaskRoute], config: BucketConfig) -> EpochBuckets:
    """Bucket shares (over all tasks) and the Fig. 3 pair rates (over non-infra tasks)."""
    total = max(1, len(tasks))
    diagnosable = [t for t in tasks if t.bucket != Bucket.INFRA]
    n = max(1, len(diagnosable))
    fails = [t for t in diagnosable if t.bucket in ALL_FAIL]
    return EpochBuckets(
        lane=lane, epoch=epoch, config=config, tasks=tasks,
        shares={b.value: sum(t.bucket == b for t in tasks) / total for b in Bucket}, diagnosable=len(diagnosable),
        same_epoch_pair_rate=sum(t.bucket == Bucket.MIXED for t in diagnosable) / n,
        memory_pair_rate=sum(t.pair_source == "memory" for t in fails) / n,
        unpaired_fail_rate=sum(t.pair_source is None for t in fails) / n,
        all_pass_rate=sum(t.bucket in ALL_PASS for t in diagnosable) / n)
