"""Checks made before the first trial of ``run``, ``evolve``, ``eval`` and ``tasks difficulty``.

A task that cannot be read (task.toml syntax, no tests/, an empty instruction.md), a task ``sim`` cannot
play (no reference solution to simulate from), a model LiteLLM cannot route, a missing script or an
endpoint that does not answer would otherwise become attempts that fail for reasons no harness
controls. Each is refused in one line (:class:`PreflightError`) before anything is written.
"""

from __future__ import annotations

from pathlib import Path

from modularrsi.models.registry import check_model
from modularrsi.models.roles import ModelSettings
from modularrsi.tasks.model import TaskError, discover, load_task


class PreflightError(ValueError):
    """A task or model no trial could use; the message is one line naming it and what to do."""


def is_sim(model: str) -> bool:
    return model == "sim" or model.startswith("sim:")


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
        key = (settings.model, settings.api_base)
        if key not in seen:
            seen.add(key)
            check_model(settings.model, settings.api_base)


def run_models(model: str, agent_kwargs: dict, roles) -> list[ModelSettings]:
    """The models a run's trials call: the agent's (and a task-aware composer's)."""
    if roles is not None:
        return [roles.agent, *([roles.composer] if roles.composer is not None else [])]
    return [ModelSettings(model=model, api_base=agent_kwargs.get("api_base"))]


def check_run(config) -> None:
    """A :class:`~modularrsi.rollouts.config.RunConfig` before its first trial: models, then local tasks."""
    models = run_models(config.model, config.agent_kwargs, config.roles)
    check_models(models)
    if config.tasks and not config.dataset:
        check_tasks(config.tasks, sim=is_sim(models[0].model))
