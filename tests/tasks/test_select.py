"""`tasks select` on a synthetic manifest: bin counts, balance, determinism, holdout, shortfall.

Selection reads only the manifest, so the 200 tasks here exist only as manifest entries."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections import Counter

import pytest

from modularrsi.tasks.manifest import Exclusion, PoolManifest, TaskEntry, load_manifest, save_manifest
from modularrsi.tasks.select import (
    SelectionError,
    SelectOptions,
    difficulty_bin,
    largest_remainder,
    parse_distribution,
    select_tasks,
)

CATEGORIES = [f"cat{i}" for i in range(8)]
RUNNER = ("import typer, sys; from modularrsi.cli.select import command; "
          "from modularrsi.util.outbound import apply_offline_defaults; apply_offline_defaults(); typer.run(command)")


def run_cli(*args):
    return subprocess.run([sys.executable, "-c", RUNNER, *map(str, args)], capture_output=True, text=True,
                          timeout=120, env={**os.environ, "COLUMNS": "200"})


def synthetic(per_bin=(45, 22, 66, 22, 45)) -> PoolManifest:
    """Tasks spread over the five difficulty bins, categories cycling, plus unmeasured and excluded ones."""
    manifest = PoolManifest(pool=["fake/pool"])
    for b, count in enumerate(per_bin):
        for j in range(count):
            difficulty = b * 0.2 + 0.01 + 0.18 * j / count
            name = f"t{b}-{j:03d}"
            manifest.tasks[name] = TaskEntry(path=f"fake/pool/{name}", category=CATEGORIES[j % 8],
                                             success_rate=round(1 - difficulty, 4))
    for j in range(5):
        manifest.tasks[f"unmeasured-{j}"] = TaskEntry(path=f"fake/pool/unmeasured-{j}", category="cat0")
        manifest.tasks[f"excluded-{j}"] = TaskEntry(path=f"fake/pool/excluded-{j}", success_rate=0.5)
        manifest.exclude(Exclusion(task=f"excluded-{j}", reason="near-duplicate", source="overlap"))
    return manifest


def bins_of(manifest, names):
    return Counter(difficulty_bin(manifest.tasks[t].success_rate) for t in names)


def test_rounding_binning_and_distributions(tmp_path):
    assert largest_remainder(120, [10, 15, 50, 15, 10]) == [12, 18, 60, 18, 12]
    assert largest_remainder(10, [10, 15, 50, 15, 10]) == [1, 2, 5, 1, 1]
    assert largest_remainder(7, [20] * 5) == [2, 2, 1, 1, 1]
    assert [difficulty_bin(v) for v in (1.0, 0.81, 0.8, 0.6, 0.4, 0.2, 0.19, 0.0)] == [0, 0, 1, 2, 3, 4, 4, 4]
    shares = tmp_path / "d.json"
    shares.write_text("[5, 20, 50, 20, 5]")
    assert parse_distribution(str(shares)) == (str(shares), [5.0, 20.0, 50.0, 20.0, 5.0])
    shares.write_text("[5, 20, 50, 20]")
    with pytest.raises(SelectionError, match=r"need a JSON list of five non-negative percentages, got \[5, 20"):
        parse_distribution(str(shares))
    shares.write_text("[5, 20, 50, 15, 5]")
    with pytest.raises(SelectionError, match=r"d.json: the five percentages sum to 95, need 100$"):
        parse_distribution(str(shares))
    with pytest.raises(SelectionError, match=r"unknown distribution 'bell'"):
        parse_distribution("bell")


@pytest.mark.parametrize(("distribution", "targets"), [("medium-centered", [12, 18, 60, 18, 12]),
                                                        ("hard-easy", [42, 12, 12, 12, 42])])
def test_exact_bin_counts_and_category_balance(distribution, targets):
    manifest = synthetic()
    sel = select_tasks(manifest, SelectOptions(distribution=distribution, n=120, seed=3))
    chosen = sel.train + sel.holdout
    assert len(chosen) == len(set(chosen)) == 120 and sel.holdout == []
    counts = bins_of(manifest, chosen)
    assert [counts[i] for i in range(5)] == targets
    assert [b.target for b in sel.bins] == targets == [b.selected for b in sel.bins]
    assert not any(t.startswith(("unmeasured", "excluded")) for t in chosen)
    for i in range(5):
        per_cat = Counter(manifest.tasks[t].category for t in chosen if difficulty_bin(manifest.tasks[t].success_rate)
                          == i)
        assert max(per_cat.values()) - min(per_cat.values()) <= 1, (i, per_cat)
    overall = Counter(manifest.tasks[t].category for t in chosen)
    assert len(overall) == 8 and max(overall.values()) - min(overall.values()) <= 1, overall
    assert (sel.distribution, sel.n, sel.seed, sel.balance) == (distribution, 120, 3, "category")
    assert sel.eligible == 200 and sel.bins_by == "success_rate" and sel.shortfall is None


def test_same_seed_same_selection_other_seed_other_selection():
    manifest = synthetic()
    options = dict(distribution="uniform", n=60, holdout_fraction=0.2)
    first = select_tasks(manifest, SelectOptions(seed=7, **options))
    again = select_tasks(synthetic(), SelectOptions(seed=7, **options))
    other = select_tasks(manifest, SelectOptions(seed=8, **options))
    assert (first.train, first.holdout) == (again.train, again.holdout)
    assert set(first.train + first.holdout) != set(other.train + other.holdout)


def test_holdout_split_is_seeded_and_balanced():
    manifest = synthetic()
    sel = select_tasks(manifest, SelectOptions(distribution="medium-centered", n=120, seed=1, holdout_fraction=0.25))
    assert len(sel.holdout) == 30 and len(sel.train) == 90 and not set(sel.train) & set(sel.holdout)
    per_bin = bins_of(manifest, sel.holdout)
    assert [per_bin[i] for i in range(5)] == [3, 5, 15, 4, 3] == [b.holdout for b in sel.bins]
    cats = Counter(manifest.tasks[t].category for t in sel.holdout)
    assert len(cats) == 8 and max(cats.values()) - min(cats.values()) <= 1, cats
    assert sel.holdout_fraction == 0.25


def test_balance_none_and_per_model_binning():
    manifest = synthetic()
    for name, entry in manifest.tasks.items():
        if entry.success_rate is not None:
            entry.success = {"m": {"attempts": 5, "passes": 5 if name.startswith("t0") else 0}}
    sel = select_tasks(manifest, SelectOptions(distribution="hard-easy", n=20, balance="none", bins_by="success:m",
                                               allow_shortfall=True))
    assert sel.balance == "none" and len(sel.train) == 20
    assert {b.label: b.available for b in sel.bins}["0–20 %"] == 45


def test_shortfall_is_an_error_with_numbers():
    manifest = synthetic(per_bin=(45, 22, 66, 22, 30))
    with pytest.raises(SelectionError) as info:
        select_tasks(manifest, SelectOptions(distribution="hard-easy", n=120))
    assert str(info.value).startswith("bin 80–100 % difficulty needs 42 tasks, has 30 (distribution hard-easy, "
                                      "--count 120); ")
    assert "--allow-shortfall" in str(info.value) and "\n" not in str(info.value)


def test_allow_shortfall_fills_from_the_nearest_bins_and_records_it():
    manifest = synthetic(per_bin=(45, 22, 66, 22, 30))
    sel = select_tasks(manifest, SelectOptions(distribution="hard-easy", n=120, allow_shortfall=True))
    chosen = sel.train + sel.holdout
    counts = bins_of(manifest, chosen)
    # 80–100 % has 30 of its 42; 60–80 % has 22 for a target of 12, so lends 10; 40–60 % lends the last 2.
    assert [counts[i] for i in range(5)] == [42, 12, 14, 22, 30] and len(chosen) == 120
    assert [s.model_dump() for s in sel.shortfall or []] == [{"bin": "80–100 %", "missing": 12,
                                                              "filled_from": {"60–80 %": 10, "40–60 %": 2}}]


def test_bad_inputs_are_one_line_errors_with_numbers():
    manifest = synthetic()
    with pytest.raises(SelectionError, match=r"^--count 300 exceeds the 200 eligible tasks \(210 in the manifest: "
                                             r"5 without success_rate, 5 excluded\)$"):
        select_tasks(manifest, SelectOptions(distribution="uniform", n=300))
    with pytest.raises(SelectionError, match=r"^no eligible tasks \(0 in the manifest"):
        select_tasks(PoolManifest(), SelectOptions(distribution="uniform", n=3))
    with pytest.raises(SelectionError, match=r"--holdout-fraction must be in \[0, 1\), got 1"):
        select_tasks(manifest, SelectOptions(distribution="uniform", n=3, holdout_fraction=1.0))
    with pytest.raises(SelectionError, match=r"--balance 'colour' is not a task field"):
        select_tasks(manifest, SelectOptions(distribution="uniform", n=3, balance="colour"))
    manifest.tasks["t0-000"].success_rate = 1.5
    with pytest.raises(SelectionError, match=r"task 't0-000': success_rate=1.5 is not a number in \[0, 1\]"):
        select_tasks(manifest, SelectOptions(distribution="uniform", n=3))


def test_cli_records_selection_and_prints_bins(tmp_path):
    pool = tmp_path / "pool"
    save_manifest(pool / "manifest.json", synthetic())
    result = run_cli(pool, "--distribution", "medium-centered", "--count", 120, "--seed", 2, "--holdout-fraction", 0.1)
    assert result.returncode == 0, result.stderr
    assert "40–60 %" in result.stdout and "train: 108 tasks" in result.stdout and "holdout: 12 tasks" in result.stdout
    record = load_manifest(pool / "manifest.json")
    assert record.selection is not None and len(record.selection.train) == 108
    assert record.train_tasks() == record.selection.train
    saved = json.loads((pool / "manifest.json").read_text())["selection"]
    assert [b["selected"] for b in saved["bins"]] == [12, 18, 60, 18, 12]


def test_cli_errors_are_one_line_and_exit_2(tmp_path):
    pool = tmp_path / "pool"
    result = run_cli(pool)
    assert result.returncode == 2
    assert result.stderr.strip() == f"error: {pool / 'manifest.json'}: no pool manifest; run `modularrsi tasks " \
                                    f"difficulty {pool}` first"
    save_manifest(pool / "manifest.json", synthetic(per_bin=(45, 22, 66, 22, 30)))
    result = run_cli(pool, "--distribution", "hard-easy", "--count", 120)
    assert result.returncode == 2 and len(result.stderr.strip().splitlines()) == 1
    assert "bin 80–100 % difficulty needs 42 tasks, has 30" in result.stderr
    assert load_manifest(pool / "manifest.json").selection is None
    result = run_cli(pool, "--distribution", "hard-easy", "--count", 120, "--allow-shortfall")
    assert result.returncode == 0 and "short 12: 10 from 60–80 %, 2 from 40–60 %" in result.stdout
