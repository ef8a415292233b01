"""modularrsi.evolve.gates.stats: the sign test over units, its exact power, and the units it would need."""

from __future__ import annotations

import itertools
import math

import pytest
from scipy.stats import binom, binomtest

from modularrsi.evolve.gates.stats import sign_test_power, tasks_to_show, units_needed


def brute_power(n: int, p_up: float, p_down: float, alpha: float) -> float:
    """Every sequence of n units (up / down / tie), each tested with scipy's exact binomial test."""
    p_tie, total = 1 - p_up - p_down, 0.0
    for units in itertools.product("udt", repeat=n):
        up, down = units.count("u"), units.count("d")
        prob = p_up ** up * p_down ** down * p_tie ** (n - up - down)
        if up + down and binomtest(up, up + down, 0.5).pvalue <= alpha:
            total += prob
    return total


@pytest.mark.parametrize(("n", "p_up", "p_down"), [(6, 0.5, 0.1), (7, 0.4, 0.0), (5, 0.9, 0.1), (8, 0.3, 0.3)])
def test_power_is_the_exact_rejection_probability(n, p_up, p_down):
    assert math.isclose(sign_test_power(n, p_up, p_down, 0.05), brute_power(n, p_up, p_down, 0.05), abs_tol=1e-9)


def test_units_needed():
    # every unit up: the two-sided sign test first rejects at 6 (2/64 <= 0.05; 2/32 > 0.05)
    assert units_needed(1.0, 0.0) == 6
    assert units_needed(0.3, 0.3) is None  # no difference seen: no number of units separates them
    n = units_needed(0.25, 0.0)  # one unit in four up, none down
    assert sign_test_power(n, 0.25, 0.0) >= 0.8 > sign_test_power(n - 1, 0.25, 0.0)
    assert units_needed(0.25, 0.0, power=0.9) > n
    assert units_needed(0.001, 0.0, most=50) is None  # beyond the search: said, not guessed


def test_a_null_evaluation_says_how_many_tasks_would_show_the_gain_it_saw():
    # 2 fixed and none broken of 20: the two-sided sign test rejects only once 6 tasks changed, all fixed, so the
    # tasks needed are the fewest n with P(Bin(n, 0.1) >= 6) >= 0.8
    need = next(n for n in range(6, 500) if binom.sf(5, n, 0.1) >= 0.8)
    said = tasks_to_show(20, 2, 0)
    assert f"about {need} tasks would show one (p < 0.05 with power 0.8)" in said and "2 fixed, 0 broken of 20" in said
    assert "no number of tasks" in tasks_to_show(20, 1, 1)
    assert "no number of tasks" in tasks_to_show(20, 0, 2)
    assert "no number of tasks" in tasks_to_show(0, 0, 0)
