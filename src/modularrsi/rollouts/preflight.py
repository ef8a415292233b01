"""Checks made before the first trial of ``run``, ``evolve``, ``eval`` and ``tasks difficulty``.

A task that cannot be read (task.toml syntax, no tests/, an empty instruction.md), a task ``sim`` cannot
play (no reference solution to simulate from), a model LiteLLM cannot route or whose key is not in the
environment, a missing script, an endpoint that does not answer, an environment that cannot start here
(the embedded sandbox without root, a container engine that is not installed, a remote sandbox without
its credentials) would otherwise become attempts that fail for reasons no harness controls. Each is
refused in one line (:class:`PreflightError`) before anything is written, once per command: the stages
that follow (both sides of an eval, every run of an evolution) are given ``checked=True``.
"""

from __future__ import annotations

import os
from pathlib import Path

from modularrsi.models.registry import check_model
from modularrsi.models.settings import ModelSettings, is_sim
from modularrsi.rollouts.config import TrialSettings
from modularrsi.tasks.model import TaskError, discover, load_task
from modularrsi.util.errors import UserError


class PreflightError(UserError):
    """A task or model no trial could use; the message is one line naming it and what to do."""


def check_tasks(paths: list[Path], sim: bool = False) -> list[Path]:
    """The task directories under ``paths``; every unusable task is named, the first in full.
    ``sim``: each needs ``solution/solve.sh`` (the simulator plays from it)."""
    tasks = discover(paths)
    problems = []
    for task in tasks:
        try:
            load_task(task, need_solution=sim)
        except TaskError as exc:
            why = f"{exc} (sim plays from the reference solution)" if exc.file == "solution/solve.sh" else str(exc)
            problems.append(why)
    if problems:
        more = f" (and {len(problems) - 1} more: fix them or leave those tasks out)" if len(problems) > 1 else ""
        raise PreflightError(f"task {problems[0]}{more}")
    return tasks


def check_models(models: list[ModelSettings]) -> None:
    """Each distinct model answers (see :func:`~modularrsi.models.registry.check_model`)."""
    seen = set()
    for settings in models:
        key = (settings.model, settings.api_base, settings.api_key_env)
        if key not in seen:
            seen.add(key)
            check_model(settings.model, settings.api_base, api_key_env=settings.api_key_env)


def run_models(config: TrialSettings) -> list[ModelSettings]:
    """The models a run's trials call: the agent's (and a task-aware composer's)."""
    composer = config.roles.composer if config.roles is not None else None
    return [config.role("agent"), *([composer] if composer is not None else [])]


def check_environment(name: str, kwargs: dict | None = None) -> None:
    """Trials can start in environment ``name`` here. ``local``: the embedded sandbox needs root; ``auto``:
    root, or a container engine that answers (auto then uses it for every task); any other: the
    environment's own Harbor preflight (its CLI on PATH, its credentials in the environment)."""
    from harbor.environments.factory import EnvironmentFactory

    from modularrsi.tasks.trials import engine_here, environment_config

    root = os.geteuid() == 0
    if name == "auto":
        if not root and engine_here() is None:
            raise PreflightError("--env auto: not root, so the embedded sandbox cannot run, and no container "
                                 "engine answers here: run as root, or install podman or docker (with compose v2)")
        return
    if name == "local":
        if not root:
            raise PreflightError("--env local: the embedded sandbox needs root (it maps each sandbox to "
                                 "unprivileged host uids and mounts its disk); run as root, or use --env podman "
                                 "or --env docker")
        return
    config = environment_config(name, kwargs)
    try:
        EnvironmentFactory.run_preflight(config.type, config.import_path, kwargs)
    except (SystemExit, ValueError) as exc:
        raise PreflightError(f"--env {name}: {' '.join(str(exc).split())}") from None


def check_run(config) -> None:
    """A :class:`~modularrsi.rollouts.config.RunConfig` before its first trial: models, the environment,
    then local tasks."""
    models = run_models(config)
    check_models(models)
    check_environment(config.env, config.env_kwargs)
    if config.tasks and not config.dataset:
        check_tasks(config.tasks, sim=is_sim(models[0].model))
