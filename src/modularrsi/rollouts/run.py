"""One ``modularrsi run``: resolve tasks, lay out the run directory, run the attempts, write results."""

from __future__ import annotations

import datetime as dt
import time
from collections.abc import Callable
from pathlib import Path

from harbor.models.job.config import DatasetConfig
from harbor.models.trial.config import TaskConfig

from modularrsi.harness.agent import BASELINE
from modularrsi.harness.library import load_generation
from modularrsi.rollouts.config import RunConfig
from modularrsi.rollouts.results import RunResults, build_results
from modularrsi.rollouts.runner import Job, Runner, attempt_seed, write_lock
from modularrsi.tasks.model import discover
from modularrsi.util.files import write_json, write_yaml


def new_run_id(prefix: str = "run") -> str:
    return f"{prefix}-{dt.datetime.now(dt.UTC).strftime('%Y%m%d-%H%M%S')}"


async def resolve_tasks(config: RunConfig) -> list[tuple[str, TaskConfig]]:
    """(name, Harbor TaskConfig) for local task paths or a registry dataset."""
    if config.dataset:
        name, _, version = config.dataset.partition("@")
        dataset = DatasetConfig(name=name, version=version or None, registry_path=config.registry_path)
        tasks = await dataset.get_task_configs()
        return [(Path(str(t.path)).name, t) for t in tasks]
    if not config.tasks:
        raise ValueError("no tasks: give --tasks PATH... or --dataset NAME@VERSION")
    return [(p.name, TaskConfig(path=p.resolve())) for p in discover(config.tasks)]


def plan_jobs(config: RunConfig, tasks: list[tuple[str, TaskConfig]]) -> list[Job]:
    return [Job(task, name, i, attempt_seed(config.seed, name, i)) for name, task in tasks for i in range(config.k)]


async def execute(config: RunConfig, run_dir: Path,
                  observers: list[Callable[[str, dict], None]] | None = None) -> RunResults:
    """Run (or resume) the run in ``run_dir``; returns and writes ``results.json``."""
    generation = load_generation(config.generation or BASELINE)
    tasks = await resolve_tasks(config)
    jobs = plan_jobs(config, tasks)
    run_dir.mkdir(parents=True, exist_ok=True)
    if not (run_dir / "config.yaml").exists():
        write_yaml(run_dir / "config.yaml", config.dump())
    write_lock(run_dir, config, jobs, generation.id)
    runner = Runner(config, run_dir, jobs, observers)
    for observer in observers or []:
        observer("planned", {"attempts": len(jobs), "tasks": len(tasks)})
    started = time.monotonic()
    attempts = await runner.run()
    results = build_results(run_dir.name, config.model, generation.id, attempts, config.k,
                            time.monotonic() - started, seed=config.seed)
    write_json(run_dir / "results.json", results.model_dump(mode="json"))
    write_json(run_dir / "state.json", {"status": "done", "attempts_total": len(jobs),
                                        "attempts_done": len(attempts), "updated_at": time.time()})
    return results
