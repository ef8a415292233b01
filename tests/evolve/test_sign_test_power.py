"""modularrsi.evolve.gates.stats: the sign test over units, its exact power, the units it would need, and Holm's
adjustment of a family of such tests."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from scipy.stats import binom, binomtest

from modularrsi.evolve.gates.stats import holm, sign_test_power, tasks_to_show, units_needed


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


def test_holm_multiplies_the_ith_smallest_by_the_tests_left_and_keeps_the_order():
    assert holm({"a": 0.01, "b": 0.04, "c": 0.03}) == pytest.approx({"a": 0.03, "b": 0.06, "c": 0.06})
    assert holm({"a": 0.031}) == {"a": 0.031}  # a family of one is its own test
    assert holm({"a": 0.4, "b": 0.9}) == {"a": 0.8, "b": 0.9}
    assert holm({"a": 0.6, "b": 0.7}) == {"a": 1.0, "b": 1.0}
    assert holm({}) == {}


def test_holm_keeps_the_familywise_error_at_alpha_where_raw_p_values_do_not():
    """Five true nulls (uniform p-values): any raw p below 0.05 happens about 23 % of the time, any Holm-adjusted
    one at most 5 %."""
    draws = np.random.default_rng(7).uniform(size=(4000, 5))
    raw = np.mean([min(row) < 0.05 for row in draws])
    adjusted = np.mean([min(holm(dict(zip("abcde", row, strict=True))).values()) < 0.05 for row in draws])
    assert raw > 0.18 and adjusted <= 0.06


@pytest.mark.parametrize(("n", "p_up", "p_down"), [(40, 0.18, 0.27), (61, 0.1, 0.05), (25, 0.5, 0.0)])
def test_power_over_many_units_matches_scipys_test(n, p_up, p_down):
    """Beyond what enumerating sequences reaches: the rejection region of each number of changed units from
    scipy's exact binomial test, weighted by how likely that many units change."""
    expected = 0.0
    for m in range(1, n + 1):
        region = [u for u in range(m + 1) if binomtest(u, m, 0.5).pvalue <= 0.05]
        share = p_up / (p_up + p_down)
        expected += binom.pmf(m, n, p_up + p_down) * sum(binom.pmf(u, m, share) for u in region)
    assert math.isclose(sign_test_power(n, p_up, p_down, 0.05), expected, abs_tol=1e-9)
