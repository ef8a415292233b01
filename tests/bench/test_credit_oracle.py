"""bench/credit_oracle.py: measured pairs → the shipped gate's acceptance and the oracle test's power."""

from __future__ import annotations

import pytest
from scipy.stats import binom
from testutil import load_script

from modularrsi.evolve.gates.execution import ExecutionConfig
from modularrsi.rollouts.metrics import Attempt
from modularrsi.rollouts.results import build_results

oracle = load_script("bench/credit_oracle.py")
CONFIG = ExecutionConfig()
RULE = CONFIG.rule(simulated=True)


def test_oracle_power_keeps_its_level_and_grows_with_the_effect():
    for n in (5, 10, 20, 40):
        for rate in (0.05, 0.2, 0.5):  # a change whose fixes and breaks are equally likely: the null's edge
            assert oracle.oracle_power(rate, rate, n, 0.2) <= 0.2 + 1e-12
    assert oracle.oracle_power(0.0, 0.3, 20, 0.2) == pytest.approx(0.0, abs=1e-9)
    weak, strong = (oracle.oracle_power(0.05, 0.0, 20, 0.2), oracle.oracle_power(0.4, 0.0, 20, 0.2))
    # all-fix discordance: accepted once 3 fixes are seen (2^-3 ≤ 0.2 < 2^-2)
    assert weak == pytest.approx(binom.sf(2, 20, 0.05))
    assert weak < strong and strong > 0.99
    assert oracle.oracle_power(0.1, 0.0, 40, 0.2) > oracle.oracle_power(0.1, 0.0, 10, 0.2)


def test_upper_rate():
    assert oracle.upper_rate(0, 20) == pytest.approx(1 - 0.05 ** (1 / 20))
    assert oracle.upper_rate(20, 20) == 1.0
    assert oracle.upper_rate(2, 20) > 0.1


def pool(helped: dict[str, list[tuple[bool, bool]]], k: int = 20) -> dict:
    """Ten tasks: five all-pass (inert on them), the rest ``helped`` or passing every other attempt, unchanged."""
    pairs = {f"pass{i}": [(True, True)] * k for i in range(5)}
    pairs.update({f"mid{i}": [(i % 2 == 0, i % 2 == 0) for i in range(k)] for i in range(5)})
    pairs.update(helped)
    return pairs


def test_the_shipped_gate_on_resampled_pairs():
    inert = pool({})
    acc, trials = oracle.gate_acceptance(inert, RULE, CONFIG, draws=300)
    assert acc == 0.0 and trials > 0  # the screen never sees a fix: every decision ends there
    # fails every attempt before, passes every attempt after, on three tasks: the screen fixes, the confirm accepts
    strong = pool({f"mid{i}": [(False, True)] * 20 for i in range(3)})
    assert oracle.gate_acceptance(strong, RULE, CONFIG, draws=300)[0] > 0.95
    # one fix in twenty pairs on one task: mostly not even screened in
    rare = pool({"mid0": [(False, True)] + [(False, False)] * 19})
    assert oracle.gate_acceptance(rare, RULE, CONFIG, draws=300)[0] < 0.2
    # fixes one task as often as it breaks the anchors: never accepted
    broken = {f"pass{i}": [(True, False)] * 20 for i in range(5)}
    mixed = pool({**broken, "mid0": [(False, True)] * 20})
    assert oracle.gate_acceptance(mixed, RULE, CONFIG, draws=300)[0] == 0.0


def write_run(path, outcomes: dict[tuple[str, int], bool | None]) -> None:
    """A finished run's results.json (None: an attempt that did not get a fair chance, e.g. a broken task)."""
    path.mkdir(parents=True)
    attempts = [Attempt(task=t, attempt=a, reward=None if ok is None else float(ok),
                        invalid="verifier crashed" if ok is None else None) for (t, a), ok in outcomes.items()]
    results = build_results("r", "sim", "gen", attempts, k=1 + max(a for _, a in outcomes), wall_s=1.0)
    (path / "results.json").write_text(results.model_dump_json())


def test_table_from_mechanism_runs(tmp_path, capsys):
    base = {(f"t{t}", a): a % 2 == 0 for t in range(4) for a in range(10)}
    fixer = {k: v or k[0] == "t0" for k, v in base.items()}
    base[("t1", 0)] = None  # gen_0's attempt did not get a fair chance: the pair is left out, as the gate does
    fixer[("t2", 0)] = None  # the variant's did not: a fail (a change that makes attempts crash is worse)
    write_run(tmp_path / "w1" / "run_gen_0", base)
    write_run(tmp_path / "w1" / "run_fixer", fixer)
    (tmp_path / "w1" / "run_pending").mkdir()
    oracle.main([f"{tmp_path / 'w1'}=world 1", "--draws", "50", "--pairs", "10"])
    out, err = capsys.readouterr()
    row = next(line for line in out.splitlines() if "| fixer |" in line)
    assert row.startswith("| world 1 | fixer | 39 | 5 / 1 | +0.103 | 1 / 1 | 5 / 0 of 10 |")
    assert "pending | (not finished)" in err


def test_bad_input_is_a_one_line_error(tmp_path):
    with pytest.raises(SystemExit, match="no finished gen_0 run there"):
        oracle.main([str(tmp_path)])
    write_run(tmp_path / "run_gen_0", {("t0", 0): True})
    (tmp_path / "run_torn").mkdir()
    (tmp_path / "run_torn" / "results.json").write_text('{"attempts": [')
    with pytest.raises(SystemExit, match=r"run_torn/results.json: not a finished run's results \(ValidationError\)"):
        oracle.main([str(tmp_path)])
    (tmp_path / "run_torn" / "results.json").unlink()
    write_run(tmp_path / "run_other", {("elsewhere", 0): True})
    with pytest.raises(SystemExit, match="no attempt in common"):
        oracle.main([str(tmp_path)])
    for bad in (["--alpha", "1.5"], ["--draws", "0"], ["--pairs", "10", "0"]):
        with pytest.raises(SystemExit, match="^error: --"):
            oracle.main([str(tmp_path), *bad])


def test_without_the_screen_the_confirm_runs_on_every_evidence_task():
    config = ExecutionConfig(screen=False)
    inert = pool({})
    assert oracle.gate_acceptance(inert, config.rule(True), config, draws=200)[0] == 0.0  # coupled: no discordance
    # one fix in five pairs on three tasks: the screen (2 epoch attempts) mostly misses it, the confirm does not
    sparse = pool({f"mid{i}": ([(False, True)] + [(False, False)] * 4) * 4 for i in range(3)})
    screened = oracle.gate_acceptance(sparse, RULE, CONFIG, draws=300)
    unscreened = oracle.gate_acceptance(sparse, config.rule(True), config, draws=300)
    assert unscreened[0] > screened[0] + 0.2 and unscreened[1] > screened[1]
    # evidence drawn at random from the failing tasks dilutes it with the unchanged ones
    random_evidence = oracle.gate_acceptance(sparse, config.rule(True), config, draws=300, best_evidence=False)
    assert random_evidence[0] < unscreened[0]


def test_designs_table(tmp_path, capsys):
    base = {(f"t{t}", a): a % 2 == 0 for t in range(6) for a in range(10)}
    write_run(tmp_path / "run_gen_0", base)
    write_run(tmp_path / "run_fixer", {k: v or k[0] in ("t0", "t1") for k, v in base.items()})
    oracle.main([str(tmp_path), "--draws", "40", "--pairs", "10", "--designs"])
    out = capsys.readouterr().out
    rows = [line for line in out.splitlines() if line.startswith("| ") and "accepted" not in line]
    assert [r.split(" | ")[0][2:] for r in rows[-len(oracle.DESIGNS):]] == list(oracle.DESIGNS)
    assert "| mean |" in out
