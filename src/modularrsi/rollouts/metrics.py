"""Acc, Pass@k, Pass^k, steps and tokens from attempts, per task and overall, with bootstrap intervals.

Definitions (n attempts of a task, c of them rewarded 1):

- **Acc** — mean reward over the *valid* attempts (the paper's accuracy). An attempt that did not get a
  fair chance (no reward, a model or environment failure, a harness crash: ``Attempt.invalid``) is
  counted in ``invalid`` and listed with its reason, never a 0 inside Acc. Pass@k and Pass^k use the
  valid attempts too (with k = their number when fewer than k are valid); a task without any valid
  attempt is left out of every overall mean.
- **Pass@k** — probability that at least one of k attempts passes, unbiased estimator
  ``1 - C(n-c, k) / C(n, k)`` (Chen et al. 2021; equals "any of k" when n == k).
- **Pass^k** — probability that all k attempts pass, unbiased estimator ``C(c, k) / C(n, k)``
  (equals "all of k" when n == k; the paper's Pass3).
- Overall values are means over tasks; 95 % intervals come from a percentile bootstrap that
  resamples *tasks* (the unit the paper generalises over), with a fixed seed.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from math import comb

import numpy as np
from pydantic import BaseModel, ConfigDict


@dataclass(frozen=True)
class Attempt:
    """One attempt, reduced to what metrics need."""

    task: str
    attempt: int
    reward: float | None
    steps: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float = 0.0
    wall_s: float = 0.0
    error: str | None = None
    environment: str = ""  # the environment that ran it (``local``, ``podman``, …; what --env auto chose)
    invalid: str | None = None  # why the attempt did not get a fair chance (None: valid)

    @property
    def passed(self) -> bool:
        return self.reward is not None and self.reward >= 1.0 and self.invalid is None

    @property
    def invalid_reason(self) -> str | None:
        """``invalid``, or for an attempt without a reward its error (None: a valid attempt)."""
        if self.invalid is not None:
            return self.invalid
        return None if self.reward is not None else (self.error or "no reward: the verifier produced none")


def pass_at_k(n: int, c: int, k: int) -> float:
    if k > n:
        raise ValueError(f"pass@{k} needs at least {k} attempts, have {n}")
    return 1.0 - comb(n - c, k) / comb(n, k)


def pass_hat_k(n: int, c: int, k: int) -> float:
    if k > n:
        raise ValueError(f"pass^{k} needs at least {k} attempts, have {n}")
    return comb(c, k) / comb(n, k)


class PerTask(BaseModel):
    """One task's metrics (a row of ``results.json``'s ``per_task``)."""

    model_config = ConfigDict(extra="forbid")
    task: str
    attempts: int
    passes: int
    acc: float
    pass_at_k: float
    pass_hat_k: float
    mean_steps: float
    input_tokens: int
    output_tokens: int
    cost_usd: float
    invalid: int


def task_metrics(task: str, attempts: list[Attempt], k: int) -> PerTask:
    """One task's metrics over its valid attempts (all zero when none is valid; see :func:`summarise`)."""
    valid = [a for a in attempts if a.invalid_reason is None]
    n, c = len(valid), sum(a.passed for a in valid)
    k = min(k, n)
    return PerTask(task=task, attempts=len(attempts), passes=c,
                   acc=float(np.mean([a.reward for a in valid])) if n else 0.0,
                   pass_at_k=pass_at_k(n, c, k) if n else 0.0, pass_hat_k=pass_hat_k(n, c, k) if n else 0.0,
                   mean_steps=float(np.mean([a.steps for a in valid])) if n else 0.0,
                   input_tokens=sum(a.input_tokens for a in attempts),
                   output_tokens=sum(a.output_tokens for a in attempts),
                   cost_usd=sum(a.cost_usd for a in attempts), invalid=len(attempts) - n)


def bootstrap_ci(values: np.ndarray, n_boot: int = 2000, seed: int = 0) -> tuple[float, float]:
    """95 % percentile interval of the mean of ``values`` (resampling entries)."""
    if len(values) == 0:
        return (float("nan"), float("nan"))
    rng = np.random.default_rng(seed)
    samples = rng.choice(values, size=(n_boot, len(values)), replace=True).mean(axis=1)
    low, high = np.percentile(samples, [2.5, 97.5])
    return float(low), float(high)


METRICS = ("acc", "pass_at_k", "pass_hat_k", "mean_steps")


def summarise(attempts: list[Attempt], k: int, seed: int = 0) -> tuple[dict, list[PerTask]]:
    """The overall summary with bootstrap intervals (plain, JSON-ready) and the per-task metrics."""
    by_task: dict[str, list[Attempt]] = defaultdict(list)
    for a in attempts:
        by_task[a.task].append(a)
    short = sorted(t for t, v in by_task.items() if len(v) < k)
    if short:
        raise ValueError(f"tasks with fewer than k={k} attempts: {', '.join(short[:5])}")
    per_task = [task_metrics(t, by_task[t], k) for t in sorted(by_task)]
    overall: dict = {"tasks": len(per_task), "attempts": len(attempts), "k": k,
                     "invalid_attempts": sum(m.invalid for m in per_task),
                     "input_tokens": sum(m.input_tokens for m in per_task),
                     "output_tokens": sum(m.output_tokens for m in per_task),
                     "cost_usd": round(sum(m.cost_usd for m in per_task), 6),
                     "wall_s": round(sum(a.wall_s for a in attempts), 2)}
    scored = [m for m in per_task if m.invalid < m.attempts]  # a task with no valid attempt says nothing
    passes = [(m.passes, m.attempts - m.invalid) for m in scored]
    n = max(1, len(passes))
    overall["all_pass_share"] = sum(c == a for c, a in passes) / n
    overall["mixed_share"] = sum(0 < c < a for c, a in passes) / n
    overall["all_fail_share"] = sum(c == 0 for c, a in passes) / n
    for name in METRICS:
        values = np.array([getattr(m, name) for m in scored], dtype=float)
        overall[name] = float(values.mean()) if len(values) else 0.0
        overall[f"{name}_ci95"] = list(bootstrap_ci(values, seed=seed)) if len(values) else [0.0, 0.0]
    return overall, per_task
