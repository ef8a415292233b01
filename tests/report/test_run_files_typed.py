"""lock.json and config.yaml are read back through their models (EvolveLock / RunLock, EvolveConfig), not as
raw dicts: what the report and --disjoint-from read is what those models say."""

from __future__ import annotations

import json

import pytest
import yaml
from pydantic import ValidationError

from modularrsi.cli.evolve import lock_tasks
from modularrsi.evolve.config import EvolveConfig
from modularrsi.report.gather import read_config


def test_a_locks_tasks_are_read_through_its_model():
    assert lock_tasks(json.dumps({"mode": "lanes", "tasks": ["a", "b"], "roles": {"agent": "sim"}})) == {"a", "b"}
    run = {"model": "sim", "tasks": [{"name": "x", "path": "/tasks/x"}, {"name": "y", "path": "/tasks/y"}]}
    assert lock_tasks(json.dumps(run)) == {"x", "y"}
    with pytest.raises(ValidationError):
        lock_tasks(json.dumps({"tasks": [{"path": "/tasks/x"}]}))  # a run's task without its name


def test_an_evolutions_config_is_read_through_its_model(tmp_path):
    assert read_config(tmp_path) is None  # none written
    config = EvolveConfig(tasks=[tmp_path / "t"], epochs=5, k=2)
    (tmp_path / "config.yaml").write_text(yaml.safe_dump(config.dump()))
    assert read_config(tmp_path) == config
    (tmp_path / "config.yaml").write_text("tasks: [t]\nepochs: five\n")
    assert read_config(tmp_path) is None  # not one this version reads: the report leaves out what it says
