"""Acc, Pass@k, Pass^k, steps and tokens from attempts, per task and overall, with bootstrap intervals.

Definitions (n attempts of a task, c of them rewarded 1):

- **Acc** — mean reward over all attempts (an attempt without a valid reward counts as 0 and is also
  counted in ``invalid``; the paper's accuracy).
- **Pass@k** — probability that at least one of k attempts passes, unbiased estimator
  ``1 - C(n-c, k) / C(n, k)`` (Chen et al. 2021; equals "any of k" when n == k).
- **Pass^k** — probability that all k attempts pass, unbiased estimator ``C(c, k) / C(n, k)``
  (equals "all of k" when n == k; the paper's Pass3).
- Overall values are means over tasks; 95 % intervals come from a percentile bootstrap that
  resamples *tasks* (the unit the paper generalises over), with a fixed seed.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import asdict, dataclass
from math import comb

import numpy as np


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

    @property
    def passed(self) -> bool:
        return self.reward is not None and self.reward >= 1.0


def pass_at_k(n: int, c: int, k: int) -> float:
    if k > n:
        raise ValueError(f"pass@{k} needs at least {k} attempts, have {n}")
    return 1.0 - comb(n - c, k) / comb(n, k)


def pass_hat_k(n: int, c: int, k: int) -> float:
    if k > n:
        raise ValueError(f"pass^{k} needs at least {k} attempts, have {n}")
    return comb(c, k) / comb(n, k)


@dataclass
class TaskMetrics:
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


def task_metrics(task: str, attempts: list[Attempt], k: int) -> TaskMetrics:
    n, c = len(attempts), sum(a.passed for a in attempts)
    rewards = [a.reward if a.reward is not None else 0.0 for a in attempts]
    return TaskMetrics(task, n, c, float(np.mean(rewards)), pass_at_k(n, c, k), pass_hat_k(n, c, k),
                       float(np.mean([a.steps for a in attempts])), sum(a.input_tokens for a in attempts),
                       sum(a.output_tokens for a in attempts), sum(a.cost_usd for a in attempts),
                       sum(a.reward is None for a in attempts))


def bootstrap_ci(values: np.ndarray, n_boot: int = 2000, seed: int = 0) -> tuple[float, float]:
    """95 % percentile interval of the mean of ``values`` (resampling entries)."""
    if len(values) == 0:
        return (float("nan"), float("nan"))
    rng = np.random.default_rng(seed)
    samples = rng.choice(values, size=(n_boot, len(values)), replace=True).mean(axis=1)
    low, high = np.percentile(samples, [2.5, 97.5])
    return float(low), float(high)


METRICS = ("acc", "pass_at_k", "pass_hat_k", "mean_steps")


def summarise(attempts: list[Attempt], k: int, seed: int = 0) -> dict:
    """Per-task metrics and the overall summary with bootstrap intervals (plain, JSON-ready)."""
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
    passes = [(m.passes, m.attempts) for m in per_task]
    n = max(1, len(passes))
    overall["all_pass_share"] = sum(c == a for c, a in passes) / n
    overall["mixed_share"] = sum(0 < c < a for c, a in passes) / n
    overall["all_fail_share"] = sum(c == 0 for c, a in passes) / n
    for name in METRICS:
        values = np.array([getattr(m, name) for m in per_task], dtype=float)
        overall[name] = float(values.mean()) if len(values) else float("nan")
        overall[f"{name}_ci95"] = list(bootstrap_ci(values, seed=seed))
    return {"overall": overall, "per_task": [asdict(m) for m in per_task]}
