"""Paired tests that count *tasks*, not attempts: the unit of evidence is a task's mean reward difference.

Attempts of one task share its difficulty, so they are not independent pairs; a test over attempts
overstates the evidence of a few tasks that flip several times. Both tests here reduce each task to one
number first (candidate mean − parent mean over that task's same-seed attempts).

- :func:`sign_flip_p` — an exact randomisation (sign-flip) test of "the mean per-task difference is 0"
  against "it is greater" (or two-sided): under a change that does nothing, the parent and the
  candidate attempt of one seed are exchangeable, so each task's difference is as likely to be
  ``-d`` as ``d``. The p-value is the share of the ``2^n`` sign patterns of the ``n`` non-zero
  differences whose sum reaches the observed one (exact for ``n ≤ EXACT_TASKS``; beyond, a seeded
  Monte Carlo estimate that stays valid: ``(1 + hits) / (1 + draws)``). P(p ≤ alpha) ≤ alpha under
  that null, whatever the tasks' difficulties.
- :func:`task_sign_test_p` — the exact binomial sign test on tasks improved vs worsened.

With every non-zero difference positive, the smallest reachable p is ``2^-n``, so at least
:func:`min_tasks_needed` tasks must change for a test at level alpha to be able to pass.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Literal

import numpy as np
from scipy.stats import binomtest

EXACT_TASKS = 16
DRAWS = 1 << 16
Alternative = Literal["greater", "two-sided"]


def sign_flip_p(diffs: Sequence[float], alternative: Alternative = "greater", seed: int = 0) -> float:
    """p-value of the sign-flip test on per-task differences ``diffs`` (1.0 when none is non-zero)."""
    d = np.asarray([x for x in diffs if x != 0], dtype=float)
    if d.size == 0:
        return 1.0
    magnitude = np.abs(d)
    if d.size <= EXACT_TASKS:
        signs = ((np.arange(1 << d.size)[:, None] >> np.arange(d.size)) & 1) * 2 - 1
    else:
        signs = np.random.default_rng(seed).choice([-1, 1], size=(DRAWS, d.size))
    sums = signs @ magnitude
    observed = float(d.sum())
    tol = 1e-9 * float(magnitude.sum())
    hits = np.abs(sums) >= abs(observed) - tol if alternative == "two-sided" else sums >= observed - tol
    if d.size <= EXACT_TASKS:
        return float(hits.mean())
    return float((1 + hits.sum()) / (1 + DRAWS))


def task_sign_test_p(improved: int, worsened: int, alternative: Alternative = "two-sided") -> float:
    """Exact binomial sign test over tasks (ties left out); 1.0 when no task changed."""
    if improved + worsened == 0:
        return 1.0
    return float(binomtest(improved, improved + worsened, 0.5, alternative=alternative).pvalue)


def min_tasks_needed(alpha: float) -> int:
    """Fewest changed tasks that can reach p < alpha in a one-sided test (all of them improving)."""
    return max(1, math.floor(math.log(alpha, 0.5)) + 1)
