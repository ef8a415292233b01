"""One ``modularrsi run``: resolve tasks, lay out the run directory, run the attempts, write results."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from pathlib import Path

from harbor.models.job.config import DatasetConfig
from harbor.models.trial.config import TaskConfig

from modularrsi.harness import BASELINE
from modularrsi.harness.library import load_generation
from modularrsi.models.litellm_backend import litellm_module
from modularrsi.models.settings import is_litellm
from modularrsi.rollouts.config import RunConfig
from modularrsi.rollouts.preflight import check_run
from modularrsi.rollouts.results import RunResults, build_results
from modularrsi.rollouts.runner import Job, Runner, attempt_seed, write_lock
from modularrsi.rollouts.state import LockManifests, RunState, write_state
from modularrsi.tasks.manifest import load_manifest, manifest_hash
from modularrsi.tasks.model import discover
from modularrsi.util.errors import UserError
from modularrsi.util.files import write_json, write_yaml
from modularrsi.util.heap import settle


async def resolve_tasks(config: RunConfig) -> list[tuple[str, TaskConfig]]:
    """(name, Harbor TaskConfig) for local task paths or a registry dataset."""
    if config.dataset:
        name, _, version = config.dataset.partition("@")
        dataset = DatasetConfig(name=name, version=version or None, registry_path=config.registry_path)
        try:
            tasks = await dataset.get_task_configs()
        except (ValueError, KeyError, OSError) as exc:  # Harbor's own refusals: an unknown name or version
            where = f" in {config.registry_path}" if config.registry_path else ""
            raise UserError(f"--dataset {config.dataset}{where}: {exc}") from None
        return [(Path(str(t.path)).name, t) for t in tasks]
    if not config.tasks:
        raise UserError("no tasks: give --tasks PATH... or --dataset NAME@VERSION")
    found = [(p.name, TaskConfig(path=p.resolve())) for p in discover(config.tasks)]
    if config.manifest is not None:
        wanted = set(load_manifest(config.manifest).train_tasks())
        if not wanted:
            raise UserError(f"{config.manifest}: no train tasks (select some with `tasks select`)")
        found = [(n, t) for n, t in found if n in wanted]
        missing = wanted - {n for n, _ in found}
        if missing:
            raise UserError(f"{config.manifest}: {len(missing)} train task(s) not found under --tasks, "
                            f"e.g. {sorted(missing)[0]}")
    return found


def check_disjoint(config: RunConfig, names: list[str]) -> dict[str, str]:
    """Refuse tasks that a given manifest evolved on; returns {manifest path: hash} for the lock."""
    hashes = {}
    for path in config.disjoint_from:
        manifest = load_manifest(path)
        if not manifest.tasks and manifest.selection is None:
            raise UserError(f"{path}: empty or missing manifest; cannot check disjointness")
        trained = set(manifest.train_tasks())
        clash = sorted(set(names) & trained)
        if clash:
            raise UserError(f"refusing to evaluate on {len(clash)} task(s) that {path} evolved on "
                            f"(e.g. {clash[0]}); evaluation tasks must be disjoint from evolution tasks")
        hashes[str(path)] = manifest_hash(manifest)
    return hashes


def plan_jobs(config: RunConfig, tasks: list[tuple[str, TaskConfig]]) -> list[Job]:
    chosen = config.attempts or {}
    unknown = sorted(set(chosen) - {name for name, _ in tasks})
    if unknown:
        raise UserError(f"attempts names task '{unknown[0]}', which is not among the run's tasks")
    return [Job(task, name, i, attempt_seed(config.seed, name, i)) for name, task in tasks
            for i in chosen.get(name, range(config.k))]


async def execute(config: RunConfig, run_dir: Path,
                  observers: list[Callable[[str, dict], None]] | None = None, *,
                  slots: asyncio.Semaphore | None = None, budget_path: Path | None = None,
                  checked: bool = False) -> RunResults:
    """Run (or resume) the run in ``run_dir``; returns and writes ``results.json``. ``slots`` and
    ``budget_path`` share concurrency and budget with other runs (see :class:`Runner`). Its tasks and
    models are checked before anything is written (:func:`~modularrsi.rollouts.preflight.check_run`), unless
    the caller did so already (``checked``)."""
    if not checked:
        check_run(config)
    generation = load_generation(config.generation or BASELINE)
    tasks = await resolve_tasks(config)
    disjoint = check_disjoint(config, [n for n, _ in tasks])
    jobs = plan_jobs(config, tasks)
    run_dir.mkdir(parents=True, exist_ok=True)
    if not (run_dir / "config.yaml").exists():
        write_yaml(run_dir / "config.yaml", config.dump())
    manifests = LockManifests(evolved_on=manifest_hash(load_manifest(config.manifest)) if config.manifest else None,
                              disjoint_from=disjoint)
    write_lock(run_dir, config, jobs, generation.id, manifests)
    runner = Runner(config, run_dir, jobs, observers, slots=slots, budget_path=budget_path)
    for observer in observers or []:
        observer("planned", {"attempts": len(jobs), "tasks": len(tasks)})
    if is_litellm(config.model):
        litellm_module()  # imported before the heap is frozen: its objects live as long as the process
    settle()
    started = time.monotonic()
    attempts = await runner.run()
    per_task: dict[str, int] = {}
    for job in jobs:
        per_task[job.name] = per_task.get(job.name, 0) + 1
    k = min(per_task.values(), default=config.k) if config.attempts else config.k  # chosen attempts: fewest per task
    results = build_results(run_dir.name, config.model, generation.id, attempts, k,
                            time.monotonic() - started, seed=config.seed)
    write_json(run_dir / "results.json", results.model_dump(mode="json"))
    write_state(run_dir / "state.json", RunState(status="done", attempts_total=len(jobs), attempts_done=len(attempts),
                                                 updated_at=time.time()))
    return results
