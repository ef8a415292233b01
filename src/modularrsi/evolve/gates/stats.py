"""Tests that count *tasks*, not attempts, for the paired held-out evaluation (``modularrsi eval``).

Attempts of one task share its difficulty, so a test over attempts overstates the evidence of a few
tasks that flip several times; :func:`task_sign_test_p` is the exact binomial sign test on tasks fixed
vs broken (ties left out). The execution gate's own sequential test is :mod:`.sequential`.
"""

from __future__ import annotations

from typing import Literal

from scipy.stats import binomtest

Alternative = Literal["greater", "two-sided"]


def task_sign_test_p(improved: int, worsened: int, alternative: Alternative = "two-sided") -> float:
    """Exact binomial sign test over tasks (ties left out); 1.0 when no task changed."""
    if improved + worsened == 0:
        return 1.0
    return float(binomtest(improved, improved + worsened, 0.5, alternative=alternative).pvalue)
