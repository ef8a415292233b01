"""bench/credit_stats.py: the separation table (the sign test's power: tests/evolve/test_sign_test_power.py)."""

from __future__ import annotations

from testutil import load_script

from modularrsi.evolve.gates.stats import units_needed

stats = load_script("bench/credit_stats.py")


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
    assert f"about {units_needed(0.5, 0.0)} |" in monolithic
    assert ("lanes", "right − false") not in lines
