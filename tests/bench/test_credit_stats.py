"""bench/credit_stats.py: the sign test over worlds, its exact power, and the separation table."""

from __future__ import annotations

import itertools
import math

import pytest
from scipy.stats import binomtest
from testutil import load_script

stats = load_script("bench/credit_stats.py")


def brute_power(n: int, p_win: float, p_loss: float, alpha: float) -> float:
    """Every sequence of n worlds (win / loss / tie), each tested with scipy's exact binomial test."""
    p_tie, total = 1 - p_win - p_loss, 0.0
    for worlds in itertools.product("wlt", repeat=n):
        w, loss = worlds.count("w"), worlds.count("l")
        prob = p_win ** w * p_loss ** loss * p_tie ** (n - w - loss)
        if w + loss and binomtest(w, w + loss, 0.5).pvalue <= alpha:
            total += prob
    return total


@pytest.mark.parametrize(("n", "p_win", "p_loss"), [(6, 0.5, 0.1), (7, 0.4, 0.0), (5, 0.9, 0.1), (8, 0.3, 0.3)])
def test_power_is_the_exact_rejection_probability(n, p_win, p_loss):
    assert math.isclose(stats.sign_test_power(n, p_win, p_loss, 0.05), brute_power(n, p_win, p_loss, 0.05),
                        abs_tol=1e-9)


def test_worlds_needed():
    # every world a win: the two-sided sign test first rejects at 6 (2/64 <= 0.05; 2/32 > 0.05)
    assert stats.worlds_needed(1.0, 0.0) == 6
    assert stats.worlds_needed(0.3, 0.3) is None  # no difference seen: no number of worlds separates them
    n = stats.worlds_needed(0.25, 0.0)  # wins one world in four, never loses
    assert stats.sign_test_power(n, 0.25, 0.0) >= 0.8 > stats.sign_test_power(n - 1, 0.25, 0.0)
    assert stats.worlds_needed(0.25, 0.0, power=0.9) > n


def row(method: str, world: int, right: int, false: int, gain: float) -> dict:
    return {"method": method, "world": world, "right": right, "false": false, "gain": gain}


def test_separation_table():
    rows = [row("lanes", w, 1, 0, 0.1) for w in range(1, 9)]
    rows += [row("joint", w, 0, 0, 0.1) for w in range(1, 9)]  # lanes higher by promotions in every world
    rows += [row("monolithic", w, 1, w % 2, 0.1) for w in range(1, 7)]  # 3 worlds lower, 3 tied; 6 in common
    table = stats.separation(rows, ["lanes", "joint", "monolithic"])
    lines = {tuple(c.strip() for c in line.split("|")[1:3]): line for line in table.splitlines()[2:]}
    assert "| 8 | 8 / 0 / 0 | +1.000 | 0.008 | separated by these 8 |" in lines["joint", "right − false"]
    assert "| 8 | 0 / 0 / 8 | +0.000 | 1.000 | no difference seen |" in lines["joint", "held-out gain"]
    monolithic = lines["monolithic", "right − false"]
    assert "| 6 | 3 / 0 / 3 | +0.500 | 0.250 |" in monolithic
    assert f"about {stats.worlds_needed(0.5, 0.0)} |" in monolithic
    assert ("lanes", "right − false") not in lines
