"""From routed attempts to :class:`~modularrsi.evolve.findings.TaskEvidence`: what analysis reads.

For each task of an epoch (except cooled-down or infrastructure ones, which analysis settles itself)
the evidence holds the epoch's attempts with their signals; for a contrastive task, the keystrokes of
one passing and one failing trajectory and the index of their first differing decision. The passing
side comes from this epoch when there is one, otherwise from the Trajectory Memory (an earlier
epoch's pass, marked ``from_memory``). ``contrast=False`` (the ``--no-contrast`` ablation) drops every
pair, so analysis is single-sided only.
"""

from __future__ import annotations

from pathlib import Path

from modularrsi.evolve.buckets import Bucket, EpochBuckets, TaskRoute
from modularrsi.evolve.findings import AttemptEvidence, TaskEvidence
from modularrsi.evolve.memory import AttemptRecord, TrajectoryMemory
from modularrsi.evolve.signals import decisions, first_divergence


def attempt_evidence(record: AttemptRecord, from_memory: bool = False) -> AttemptEvidence:
    return AttemptEvidence(index=record.attempt, passed=record.passed, steps=record.steps,
                           signals=record.signals, from_memory=from_memory)


def _keys(trial_dir: str) -> list[str]:
    return [turn.text for turn in decisions(Path(trial_dir))]


def task_evidence(route: TaskRoute, records: list[AttemptRecord], memory: TrajectoryMemory,
                  instruction: str = "", contrast: bool = True) -> TaskEvidence:
    """The evidence of one routed task (``records``: this epoch's attempts of that task)."""
    valid = sorted((r for r in records if r.infra_error is None), key=lambda r: r.attempt)
    attempts = [attempt_evidence(r) for r in valid]
    evidence = TaskEvidence(task=route.task, bucket=route.bucket.value, attempts=attempts, instruction=instruction)
    failing = [r for r in valid if not r.passed]
    if not failing:
        return evidence
    if not contrast:  # single-sided only: the failures, without the passes they could be contrasted with
        return evidence.model_copy(update={"attempts": [attempt_evidence(r) for r in failing]})
    passing, source = [r for r in valid if r.passed], "same-epoch"
    if not passing:
        past = memory.past_pass(records[0].lane, route.task, records[0].epoch)
        if past is None:
            return evidence
        passing, source = [past], "memory"
        attempts = [*attempts, attempt_evidence(past, from_memory=True)]
    good, bad = passing[0], failing[0]
    divergence = first_divergence(Path(good.trial_dir), Path(bad.trial_dir))
    return evidence.model_copy(update={
        "attempts": attempts, "pair_source": source, "pass_keystrokes": _keys(good.trial_dir),
        "fail_keystrokes": _keys(bad.trial_dir), "divergence_step": divergence.index if divergence else None})


def epoch_evidence(buckets: EpochBuckets, records: list[AttemptRecord], memory: TrajectoryMemory,
                   instructions: dict[str, str] | None = None, contrast: bool = True) -> list[TaskEvidence]:
    """Evidence for every task of one routed epoch, in task order (infra tasks included: analysis
    settles them without an analyst)."""
    by_task: dict[str, list[AttemptRecord]] = {}
    for record in records:
        by_task.setdefault(record.task, []).append(record)
    out = []
    for route in buckets.tasks:
        if route.bucket == Bucket.INFRA:
            out.append(TaskEvidence(task=route.task, bucket=route.bucket.value, attempts=[]))
            continue
        out.append(task_evidence(route, by_task[route.task], memory, (instructions or {}).get(route.task, ""),
                                 contrast=contrast))
    return out
