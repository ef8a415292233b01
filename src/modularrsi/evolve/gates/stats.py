"""Tests that count *tasks*, not attempts, for the paired held-out evaluation (``modularrsi eval``).

Attempts of one task share its difficulty, so a test over attempts overstates the evidence of a few
tasks that flip several times; :func:`task_sign_test_p` is the exact binomial sign test on tasks fixed
vs broken (ties left out). :func:`sign_test_power` is that test's exact power when units (tasks, or a
bench's worlds) rise, fall or tie independently at given rates, and :func:`units_needed` the fewest units
that reach a power: what a result that did not separate would have needed at the rates it saw; :func:`holm`
adjusts a family of such p-values (several libraries tested on one held-out set) for multiplicity. The
execution gate's own sequential test is :mod:`.sequential`.
"""

from __future__ import annotations

import functools
from typing import Literal

import numpy as np
from scipy.stats import binom, binomtest

Alternative = Literal["greater", "two-sided"]


def task_sign_test_p(improved: int, worsened: int, alternative: Alternative = "two-sided") -> float:
    """Exact binomial sign test over tasks (ties left out); 1.0 when no task changed."""
    if improved + worsened == 0:
        return 1.0
    return float(binomtest(improved, improved + worsened, 0.5, alternative=alternative).pvalue)


def holm(pvalues: dict[str, float]) -> dict[str, float]:
    """Holm's step-down adjustment of a family of p-values (keyed by name): rejecting where the adjusted
    p-value is at most alpha keeps the chance of any false rejection in the family at most alpha, whatever
    the dependence between the tests. The i-th smallest p (of m) is multiplied by m - i + 1, capped at 1, and
    made monotone over the order."""
    adjusted, running = {}, 0.0
    for i, (name, p) in enumerate(sorted(pvalues.items(), key=lambda item: item[1])):
        running = max(running, min(1.0, (len(pvalues) - i) * p))
        adjusted[name] = running
    return adjusted


@functools.lru_cache(maxsize=4096)
def critical(m: int, alpha: float) -> int:
    """The largest c with 2·P(X ≤ c) ≤ alpha for X ~ Bin(m, 1/2): the two-sided sign test over m changed units
    rejects when the smaller side has at most c; -1 when no outcome of m rejects."""
    return int((2 * binom.cdf(np.arange(m // 2 + 1), m, 0.5) <= alpha).sum()) - 1  # the CDF rises: a prefix


def sign_test_power(n: int, p_up: float, p_down: float, alpha: float = 0.05) -> float:
    """Probability that the exact two-sided sign test at ``alpha`` rejects over ``n`` units, each up, down or
    tied (the rest) independently at these rates."""
    changed = p_up + p_down
    if changed <= 0:
        return 0.0
    share = p_up / changed
    m = np.arange(n + 1)  # units changed
    c = np.array([critical(int(k), alpha) for k in m])
    reject = binom.cdf(c, m, share) + binom.sf(m - c - 1, m, share)  # P(U ≤ c) + P(U ≥ m − c)
    weight = np.where(c >= 0, binom.pmf(m, n, changed), 0.0)
    return float((weight * np.minimum(reject, 1.0)).sum())


def units_needed(p_up: float, p_down: float, alpha: float = 0.05, power: float = 0.8,
                 most: int = 1000) -> int | None:
    """The fewest units whose sign test reaches ``power``; None when up and down are equally likely (or more
    than ``most`` would be needed)."""
    if abs(p_up - p_down) < 1e-12:
        return None
    return next((n for n in range(1, most + 1) if sign_test_power(n, p_up, p_down, alpha) >= power), None)


def tasks_to_show(tasks: int, fixed: int, broken: int, alpha: float = 0.05, power: float = 0.8) -> str:
    """What a paired evaluation that did not show a gain would have needed: the held-out tasks at which the sign
    test reaches ``power`` when tasks are fixed and broken at the rates this one saw (a plug-in estimate)."""
    seen = f"at the rates seen ({fixed} fixed, {broken} broken of {tasks} tasks)"
    need = units_needed(fixed / tasks, broken / tasks, alpha, power) if tasks and fixed > broken else None
    if need is None:
        return f"{seen} no number of tasks is expected to show a gain"
    return f"{seen} about {need} tasks would show one (p < {alpha:g} with power {power:g})"
