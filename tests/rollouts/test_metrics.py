"""Metric definitions, checked against hand computations and Harbor's own pass@k estimator."""

import math

import numpy as np
import pytest
from harbor.utils.pass_at_k import _pass_at_k_for_task

from modularrsi.rollouts.metrics import Attempt, bootstrap_ci, pass_at_k, pass_hat_k, summarise
from modularrsi.rollouts.results import RunResults, build_results


@pytest.mark.parametrize("n, c, k", [(3, 0, 3), (3, 1, 3), (3, 2, 3), (3, 3, 3), (10, 4, 2), (10, 4, 5), (8, 1, 4)])
def test_pass_at_k_matches_harbor(n, c, k):
    assert pass_at_k(n, c, k) == pytest.approx(_pass_at_k_for_task(n, c, k))


def test_pass_hat_k_is_all_of_k():
    assert pass_hat_k(3, 3, 3) == 1.0 and pass_hat_k(3, 2, 3) == 0.0
    assert pass_hat_k(4, 3, 2) == pytest.approx(math.comb(3, 2) / math.comb(4, 2))
    with pytest.raises(ValueError, match="needs at least 4"):
        pass_hat_k(3, 3, 4)


def attempts(spec: dict[str, list[float | None]]) -> list[Attempt]:
    return [Attempt(t, i, r, steps=10 + i) for t, rs in spec.items() for i, r in enumerate(rs)]


def test_invalid_attempts_are_counted_and_left_out_of_acc_never_a_zero():
    o, per_task = summarise(attempts({"a": [1, 1, 1], "b": [1, 0, None], "c": [0, 0, 0]}), k=3)
    assert [(t.task, t.passes, t.invalid) for t in per_task] == [("a", 3, 0), ("b", 1, 1), ("c", 0, 0)]
    assert o["acc"] == pytest.approx((1 + 1 / 2 + 0) / 3)  # b: 1 of its 2 valid attempts (a 0 would give 1/3)
    assert o["pass_at_k"] == pytest.approx(2 / 3) and o["pass_hat_k"] == pytest.approx(1 / 3)  # b at k=2
    assert (o["all_pass_share"], o["mixed_share"], o["all_fail_share"]) == pytest.approx((1 / 3, 1 / 3, 1 / 3))
    assert o["invalid_attempts"] == 1 and o["mean_steps"] == pytest.approx((11 + 10.5 + 11) / 3)
    low, high = o["acc_ci95"]
    assert 0 <= low <= o["acc"] <= high <= 1


def test_a_task_without_a_valid_attempt_is_left_out_and_an_all_invalid_run_has_no_nan():
    broken = [Attempt("x", i, 0.0, invalid="model_error: unknown model") for i in range(3)]
    o, _ = summarise([*attempts({"a": [1, 0, 1]}), *broken], k=3)
    assert o["acc"] == pytest.approx(2 / 3) and o["tasks"] == 2 and o["invalid_attempts"] == 3
    results = build_results("r", "openai/x", "g", broken, 3, 1.0)
    again = RunResults.model_validate_json(results.model_dump_json())
    assert again.overall.acc == 0.0 and again.overall.acc_ci95 == [0.0, 0.0]
    assert [(a.attempt, a.invalid) for a in again.invalid()] == [(i, "model_error: unknown model") for i in range(3)]


def test_too_few_attempts_is_an_error():
    with pytest.raises(ValueError, match="fewer than k=3"):
        summarise(attempts({"a": [1, 1]}), k=3)


def test_bootstrap_is_deterministic_and_degenerate_for_constants():
    values = np.array([0.0, 1.0, 1.0, 0.5])
    assert bootstrap_ci(values, seed=3) == bootstrap_ci(values, seed=3)
    assert bootstrap_ci(np.ones(5)) == (1.0, 1.0)


def test_results_validate_against_schema_and_label_sim():
    results = build_results("r1", "sim", "g0", attempts({"a": [1, 0, 1], "b": [0, 0, 0]}), 3, 1.0)
    again = RunResults.model_validate_json(results.model_dump_json())
    assert again.simulated and again.overall.tasks == 2
    assert not build_results("r2", "openai/x", "g0", attempts({"a": [1, 1, 1]}), 3, 1.0).simulated
