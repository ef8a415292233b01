"""``RunConfig.attempts``: only the chosen attempt indices of a task run, on their usual attempt seeds."""

from __future__ import annotations

import pytest
from harbor.models.trial.config import TaskConfig
from pydantic import ValidationError
from testutil import REPO

from modularrsi.rollouts.config import RunConfig
from modularrsi.rollouts.run import plan_jobs
from modularrsi.rollouts.runner import attempt_seed

TASK = REPO / "tasks" / "pool" / "textkit-slugify-accents"


def test_chosen_attempts_run_on_their_own_seeds_and_others_take_range_k():
    config = RunConfig(tasks=[TASK], k=2, seed=5, attempts={TASK.name: [3, 1]})
    other = REPO / "tasks" / "pool" / "cfgkit-multilevel-extends"
    jobs = plan_jobs(config, [(TASK.name, TaskConfig(path=TASK)), (other.name, TaskConfig(path=other))])
    assert [(j.name, j.index) for j in jobs] == [(TASK.name, 3), (TASK.name, 1), (other.name, 0), (other.name, 1)]
    assert jobs[0].seed == attempt_seed(5, TASK.name, 3)  # the same seed as attempt 3 of a full run


@pytest.mark.parametrize("attempts, needle", [({"x": []}, "attempts.x"), ({"x": [-1]}, "≥ 0"),
                                              ({"x": [1, 1]}, "distinct")])
def test_bad_attempt_indices_are_refused_in_one_line(attempts, needle):
    with pytest.raises(ValidationError, match=needle):
        RunConfig(attempts=attempts)


def test_an_attempt_selection_naming_an_unknown_task_is_refused():
    with pytest.raises(ValueError, match="'nope', which is not among the run's tasks"):
        plan_jobs(RunConfig(attempts={"nope": [0]}), [(TASK.name, TaskConfig(path=TASK))])
