"""Shared evolve fixtures: one real sim run (4 pool tasks × k=3) made once per session."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from testutil import REPO, SAMPLED_TASKS

from modularrsi.rollouts.config import RunConfig
from modularrsi.rollouts.run import execute


@pytest.fixture(scope="session")
def run_dir(tmp_path_factory) -> Path:
    """The session's real `modularrsi run` (sim): made once, resumed (all attempts reused) afterwards."""
    run_dir = tmp_path_factory.getbasetemp() / "sampling-run"
    if not (run_dir / "results.json").is_file():
        config = RunConfig(tasks=[REPO / "tasks" / "pool" / t for t in SAMPLED_TASKS], k=3, concurrency=6)
        asyncio.run(execute(config, run_dir))
    return run_dir
