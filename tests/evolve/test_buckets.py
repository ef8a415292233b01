"""Routing buckets: hand-made attempt lists for every edge case, with a real memory; a real sim run routed."""

from __future__ import annotations

import pytest
from testutil import SAMPLED_TASKS

from modularrsi.evolve.buckets import Bucket, BucketConfig, EpochBuckets, TaskRoute, in_cooldown, route
from modularrsi.evolve.memory import AttemptRecord, TrajectoryMemory
from modularrsi.evolve.signals import Signals

TASKS = SAMPLED_TASKS  # the tasks of the shared `run_dir` fixture (tests/evolve/conftest.py)
ALL_PASS_BUCKETS = (Bucket.ALL_PASS_EFFICIENT, Bucket.ALL_PASS_WASTEFUL)
ALL_FAIL_BUCKETS = (Bucket.FIXABLE_FAIL, Bucket.UNREACHABLE)


@pytest.fixture
def memory(tmp_path):
    with TrajectoryMemory(tmp_path / "memory.sqlite") as m:
        yield m


def rec(task: str, epoch: int, attempt: int, passed: bool, steps: int = 5, state_changes: int = 2, turns: int = 5,
        infra: str | None = None, lane: str = "completion") -> AttemptRecord:
    return AttemptRecord(lane=lane, epoch=epoch, generation="g", task=task, attempt=attempt,
                         reward=None if infra else float(passed), passed=passed, steps=steps, tokens=10,
                         trial_dir=f"/x/{task}__a{attempt}", infra_error=infra,
                         signals=Signals(complete=True, turns=turns, state_changes=state_changes))


def three(task: str, epoch: int, *passed: bool, **kwargs) -> list[AttemptRecord]:
    return [rec(task, epoch, k, p, **kwargs) for k, p in enumerate(passed)]


def buckets_of(result: EpochBuckets) -> dict[str, Bucket]:
    return {t.task: t.bucket for t in result.tasks}


def named(result: EpochBuckets, task: str) -> TaskRoute:
    return next(t for t in result.tasks if t.task == task)


def test_infrastructure_failures_are_excluded(memory):
    attempts = [*three("down", 1, False, False, False, infra="EnvironmentStartTimeoutError: slow"),
                rec("flaky", 1, 0, True), rec("flaky", 1, 1, False, infra="RewardFileNotFoundError: none"),
                rec("flaky", 1, 2, False, infra="RewardFileNotFoundError: none")]
    result = route(attempts, memory)
    down, flaky = named(result, "down"), named(result, "flaky")
    assert down.bucket == Bucket.INFRA and "EnvironmentStartTimeoutError" in down.reason and down.valid == 0
    assert flaky.bucket == Bucket.ALL_PASS_EFFICIENT and "(2 infra attempt(s) excluded)" in flaky.reason
    assert (flaky.attempts, flaky.valid, flaky.passes) == (3, 1, 1)
    assert result.shares["infra"] == 0.5 and result.diagnosable == 1 and result.all_pass_rate == 1.0


def test_wasteful_in_the_first_epoch_is_judged_against_the_pool_median(memory):
    attempts = [*three("a", 1, True, True, True, steps=4), *three("b", 1, True, True, False, steps=5),
                *three("c", 1, True, True, True, steps=10), *three("d", 1, True, True, True, steps=6)]
    result = route(attempts, memory)  # pass means: a 4, b 5, c 10, d 6 → median 5.5 → wasteful above 8.25
    assert buckets_of(result) == {"a": Bucket.ALL_PASS_EFFICIENT, "b": Bucket.MIXED, "c": Bucket.ALL_PASS_WASTEFUL,
                                  "d": Bucket.ALL_PASS_EFFICIENT}
    c = named(result, "c")
    assert c.reference_steps == 5.5 and "pool median" in c.reason and c.mean_steps == 10


def test_wasteful_later_is_judged_against_the_tasks_own_best_epoch(memory):
    memory.add([*three("long", 1, True, True, True, steps=9), *three("short", 1, True, True, True, steps=6),
                *three("short", 2, True, True, False, steps=4), *three("short", 3, True, True, True, steps=1)])
    attempts = [*three("long", 3, True, True, True, steps=10), *three("short", 3, True, True, True, steps=7),
                *three("other", 3, True, True, True, steps=2)]
    result = route(attempts, memory)
    assert buckets_of(result) == {"long": Bucket.ALL_PASS_EFFICIENT, "short": Bucket.ALL_PASS_WASTEFUL,
                                  "other": Bucket.ALL_PASS_EFFICIENT}
    short = named(result, "short")
    assert short.reference_steps == 4 and "best earlier mean (epoch 2)" in short.reason
    assert named(route(attempts, memory, BucketConfig(wasteful_ratio=2.0)), "short").bucket == Bucket.ALL_PASS_EFFICIENT


def test_all_fail_routes_to_unreachable_fixable_or_memory_pair(memory):
    memory.add(three("recalled", 0, False, True, False, state_changes=0))
    attempts = [*three("nothing", 1, False, False, False, state_changes=0, turns=4),
                *three("tried", 1, False, False, False, state_changes=1),
                *three("recalled", 1, False, False, False, state_changes=0),
                *three("unread", 1, False, False, False, state_changes=0, turns=0)]
    result = route(attempts, memory)
    assert buckets_of(result) == {"nothing": Bucket.UNREACHABLE, "tried": Bucket.FIXABLE_FAIL,
                                  "recalled": Bucket.FIXABLE_FAIL, "unread": Bucket.FIXABLE_FAIL}
    recalled = named(result, "recalled")
    assert (recalled.pair_source, recalled.past_pass_epoch) == ("memory", 0) and "epoch 0" in recalled.reason
    assert named(result, "tried").pair_source is None and "no earlier pass" in named(result, "tried").reason
    lenient = route(attempts, memory, BucketConfig(unreachable_max_state_changes=1))
    assert buckets_of(lenient)["tried"] == Bucket.UNREACHABLE


def test_stuck_after_consecutive_failing_epochs_then_cooldown(memory):
    memory.add([*three("s", 1, False, False, False), *three("gap", 1, False, False, False),
                *three("gap", 2, False, False, False, infra="HealthcheckError: down"),
                *three("back", 1, True, False, False), *three("back", 2, False, False, False)])
    attempts = [*three("s", 2, False, False, False), *three("gap", 3, False, False, False),
                *three("fresh", 2, False, False, False)]
    by_task = {t.task: t for t in route(attempts[:3], memory).tasks}
    assert by_task["s"].bucket == Bucket.STUCK_FAIL and by_task["s"].cooldown_until == 3
    assert "cooling down until epoch 3" in by_task["s"].reason
    gap = route(attempts[3:6], memory).tasks[0]
    assert gap.bucket == Bucket.STUCK_FAIL  # the infra-only epoch 2 was not sampled
    assert route(attempts[6:], memory).tasks[0].bucket == Bucket.FIXABLE_FAIL
    back = route(three("back", 3, False, False, False), memory).tasks[0]
    assert (back.bucket, back.pair_source, back.past_pass_epoch) == (Bucket.STUCK_FAIL, "memory", 1)
    patient = BucketConfig(stuck_epochs=3)
    assert route(attempts[:3], memory, patient).tasks[0].bucket == Bucket.FIXABLE_FAIL
    memory.add(attempts[:3])
    history = memory.task_history("completion", "s")
    assert in_cooldown(history, 3, BucketConfig()) and not in_cooldown(history, 4, BucketConfig())
    assert in_cooldown(history, 4, BucketConfig(cooldown_epochs=2))
    assert not in_cooldown(history, 3, patient) and not in_cooldown(history, 1, BucketConfig())


def test_pair_rates_are_the_papers_figure_3_split(memory):
    memory.add(three("old-pass", 1, True, False, False))
    attempts = [*three("m1", 2, True, False, False), *three("m2", 2, False, True, True),
                *three("old-pass", 2, False, False, False), *three("f", 2, False, False, False),
                *three("p", 2, True, True, True), *three("i", 2, False, False, False, infra="SandboxBuildFailedError")]
    result = route(attempts, memory)
    assert result.diagnosable == 5 and result.shares["infra"] == pytest.approx(1 / 6)
    rates = (result.same_epoch_pair_rate, result.memory_pair_rate, result.unpaired_fail_rate, result.all_pass_rate)
    assert rates == pytest.approx((0.4, 0.2, 0.2, 0.2)) and sum(rates) == pytest.approx(1.0)
    assert sum(result.shares.values()) == pytest.approx(1.0)
    assert [t.task for t in result.in_bucket(Bucket.MIXED)] == ["m1", "m2"]


def test_route_refuses_empty_or_mixed_input(memory):
    with pytest.raises(ValueError, match="got none"):
        route([], memory)
    with pytest.raises(ValueError, match="one lane and epoch"):
        route([rec("a", 1, 0, True), rec("a", 1, 1, True, lane="context")], memory)


def test_a_real_run_routed_over_two_epochs(run_dir, memory):
    first = route(memory.record_run(run_dir, "completion", 1, "g0"), memory)
    assert sorted(t.task for t in first.tasks) == sorted(TASKS)
    for t in first.tasks:
        assert t.valid == t.attempts == 3
        expected = {3: ALL_PASS_BUCKETS, 0: ALL_FAIL_BUCKETS}.get(t.passes, (Bucket.MIXED,))
        assert t.bucket in expected, t
    assert first.same_epoch_pair_rate + first.memory_pair_rate + first.unpaired_fail_rate + \
        first.all_pass_rate == pytest.approx(1.0)
    assert EpochBuckets.model_validate_json(first.model_dump_json()) == first
    second = route(memory.record_run(run_dir, "completion", 2, "g1"), memory)  # the same outcomes again
    for before, after in zip(first.tasks, second.tasks, strict=True):
        if before.passes == 0:
            assert after.bucket in (Bucket.STUCK_FAIL, Bucket.UNREACHABLE)
        elif before.passes == 3:
            assert after.bucket == Bucket.ALL_PASS_EFFICIENT and after.reference_steps == before.mean_steps

