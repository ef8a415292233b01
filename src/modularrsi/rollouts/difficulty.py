"""``tasks difficulty``: the empirical success rate of every task of a pool, across several models.

Each model gets one ordinary run directory (:func:`modularrsi.rollouts.run.execute`, ``k = n``) under
``out/<model slug>/``, so the measurement is resumable exactly like ``modularrsi run --resume``: running
the same command again reuses every finished trial and re-runs only the unfinished ones; a larger
``n`` or more tasks add only the missing attempts.

Invariants recorded in the pool manifest (see :mod:`modularrsi.tasks.manifest`):

- ``success[model] = {"attempts": a, "passes": p}`` is what that model's run directory holds for the
  task (an attempt without a valid reward counts as an attempt, not a pass);
- ``success_rate`` is pooled over *every* model recorded for the task (sum of passes / sum of
  attempts), so models measured by earlier invocations keep counting; re-measuring a model replaces
  its own entry only;
- ``success_ci95`` is the 95 % Wilson score interval of that pooled rate.

The models run at the same time and share the ``concurrency`` budget (attempts in flight overall).

Tasks excluded in the manifest are not measured. The manifest is saved as soon as a task's ``n``
attempts of a model are finished (and again when the model's run ends), so an interruption keeps every
task measured so far. Each entry records the settings it was measured with
(``measured_with[model]``: a fingerprint of :data:`FIXED_FIELDS`); a task whose entry already holds ``n``
attempts of the model under the same settings, and of which the model's run directory holds no trial
(a measurement carried over in the manifest from another machine or a deleted run directory), is not
measured again. Where the run directory holds trials of a task, it stays the authority, as above.
"""

from __future__ import annotations

import asyncio
import glob
import hashlib
import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from modularrsi.models.settings import is_scripted, is_sim
from modularrsi.rollouts.config import RunConfig
from modularrsi.rollouts.preflight import check_models, check_tasks, run_models
from modularrsi.rollouts.results import RunResults
from modularrsi.tasks.manifest import PoolManifest, TaskEntry, entry_for, load_manifest, save_manifest
from modularrsi.tasks.model import discover, load_task
from modularrsi.util.errors import UserError
from modularrsi.util.files import write_json, write_yaml

#: Run settings that must not change between a run directory's first and later invocations:
#: finished trials made under other settings would be silently mixed in.
FIXED_FIELDS = ("model", "seed", "env", "env_kwargs", "generation", "agent", "max_turns", "agent_kwargs",
                "timeout_multiplier", "roles")

Observer = Callable[[str, dict], None]


class DifficultyConfig(BaseModel):
    """What ``tasks difficulty`` is asked to do."""

    model_config = ConfigDict(extra="forbid")
    pools: list[Path] = Field(description="Task directories or directories of tasks.")
    models: list[str] = Field(min_length=1, description="Model names the run machinery accepts.")
    n: int = Field(default=8, ge=1, description="Attempts per task and model.")
    concurrency: int = Field(default=8, ge=1, description="Attempts running at once (per model).")
    out: Path = Field(description="Directory holding one run directory per model.")
    manifest: Path = Field(description="The pool manifest to update.")
    seed: int = Field(default=0, description="Run seed of every model's run.")
    env: str = Field(default="local", description="local, a Harbor environment type, or module:Class.")
    template: RunConfig = Field(default_factory=RunConfig, description="Run settings every model's run starts "
                                "from (--config): the agent's endpoint, key variable and temperature "
                                "(roles.agent), max_turns, timeout_multiplier, caps.")

    def run_config(self, model: str, tasks: list[Path], concurrency: int) -> RunConfig:
        """One model's run: the template's settings with this model as the agent (in ``roles.agent`` when
        the template has roles, so its endpoint and call settings go with it)."""
        data = self.template.dump()
        if self.template.roles is not None:
            data["roles"]["agent"]["model"] = model
        return RunConfig.model_validate({**data, "tasks": [str(t) for t in tasks], "model": model, "k": self.n,
                                         "concurrency": concurrency, "env": self.env, "seed": self.seed})


@dataclass
class ModelRun:
    """How one model's run went: its directory, attempts made now and reused from before."""

    model: str
    run_dir: Path
    attempts: int = 0
    reused: int = 0
    invalid: int = 0
    carried: int = 0  # tasks not measured again: the manifest holds them under the same settings


@dataclass
class DifficultyReport:
    manifest: Path
    manifest_hash: str
    tasks: list[str]
    runs: list[ModelRun] = field(default_factory=list)


def wilson_interval(passes: int, attempts: int, confidence: float = 0.95) -> tuple[float, float] | None:
    """Wilson score interval of ``passes / attempts`` (None without attempts)."""
    if attempts <= 0:
        return None
    from scipy.stats import binomtest

    ci = binomtest(passes, attempts).proportion_ci(confidence_level=confidence, method="wilson")
    return float(ci.low), float(ci.high)


def parse_models(text: str) -> list[str]:
    """``a,b,c`` → ``[a, b, c]`` (order kept, blanks and duplicates dropped); empty is an error."""
    models = list(dict.fromkeys(m.strip() for m in text.split(",") if m.strip()))
    if not models:
        raise UserError(f"--models '{text}': give at least one model, e.g. --models sim,sim:perfect")
    return models


def model_slug(model: str) -> str:
    """A directory name for a model: ``sim:perfect`` → ``sim-perfect``, ``scripted:/x/a.json`` → ``scripted-a.json``."""
    if is_scripted(model):
        model = "scripted:" + Path(model.partition(":")[2]).name
    return re.sub(r"[^A-Za-z0-9._-]+", "-", model).strip("-")[:80] or "model"


def update_rates(entry: TaskEntry) -> None:
    """Pool ``entry.success`` over models into ``success_rate`` and its Wilson interval."""
    attempts = sum(s.get("attempts", 0) for s in entry.success.values())
    passes = sum(s.get("passes", 0) for s in entry.success.values())
    ci = wilson_interval(passes, attempts)
    entry.success_rate = round(passes / attempts, 4) if attempts else None
    entry.success_ci95 = [round(ci[0], 4), round(ci[1], 4)] if ci else None


def register_tasks(manifest: PoolManifest, pools: list[Path]) -> list[Path]:
    """Add the pools and their tasks to the manifest (metadata refreshed, measurements kept);
    returns the task directories to measure (not excluded). A task directory given on its own (to measure
    some tasks of a pool first) records its pool, the directory that holds it."""
    task_dirs = discover(pools)
    if not task_dirs:
        raise UserError(f"no tasks found under {', '.join(map(str, pools))}")
    for pool in pools:
        pool = pool.parent if (pool / "task.toml").is_file() else pool
        if str(pool) not in manifest.pool:
            manifest.pool.append(str(pool))
    for task_dir in task_dirs:
        fresh = entry_for(task_dir, load_task(task_dir, need_solution=False).metadata)
        old = manifest.tasks.get(task_dir.name)
        manifest.tasks[task_dir.name] = old.model_copy(update={
            "path": fresh.path, "category": fresh.category, "difficulty": fresh.difficulty,
            "domain": fresh.domain}) if old else fresh
    excluded = manifest.excluded()
    return [t for t in task_dirs if t.name not in excluded]


def prepare_run_dir(run_dir: Path, config: RunConfig) -> None:
    """Write ``config.yaml`` for this invocation; refuse a run directory made under other settings."""
    existing = run_dir / "config.yaml"
    if existing.is_file():
        old = RunConfig.load(existing)
        for name in FIXED_FIELDS:
            was, now = getattr(old, name), getattr(config, name)
            if was != now:
                raise UserError(f"{existing}: made with {name}={was!r}, this invocation asks {name}={now!r}; "
                                f"use the same settings to continue it, or another --out")
    write_yaml(existing, config.dump())


def settings_fingerprint(config: RunConfig) -> str:
    """A short hash of the settings a measurement depends on (:data:`FIXED_FIELDS`)."""
    data = config.dump()
    canonical = json.dumps({name: data.get(name) for name in FIXED_FIELDS}, sort_keys=True, default=str)
    return "sha256:" + hashlib.sha256(canonical.encode()).hexdigest()[:16]


def carried_over(task: str, entry: TaskEntry, model: str, fingerprint: str, n: int, run_dir: Path) -> bool:
    """True when the manifest already holds ``n`` attempts of ``model`` on ``task`` under the same settings
    and the run directory has no trial of it (see the module docstring)."""
    measured = entry.measured_with.get(model) == fingerprint and entry.success.get(model, {}).get("attempts", 0) >= n
    return measured and not any((run_dir / "trials").glob(f"{glob.escape(task)}__a*"))


def set_success(entry: TaskEntry, model: str, attempts: int, passes: int, fingerprint: str) -> None:
    entry.success[model] = {"attempts": attempts, "passes": passes}
    entry.measured_with[model] = fingerprint
    update_rates(entry)


def record(manifest: PoolManifest, model: str, results: RunResults, fingerprint: str) -> None:
    for row in results.per_task:  # valid attempts only
        set_success(manifest.tasks[row.task], model, row.attempts - row.invalid, row.passes, fingerprint)


def split_concurrency(total: int, parts: int) -> list[int]:
    """``total`` attempts at once shared by ``parts`` concurrent runs (each at least 1)."""
    return [max(1, total // parts + (i < total % parts)) for i in range(parts)]


async def measure(config: DifficultyConfig, observers: list[Observer] | None = None) -> DifficultyReport:
    """Run every model on every non-excluded task ``n`` times (resuming), and update the manifest.

    The models run at the same time, sharing ``concurrency``. Observers receive the runner's events
    with ``data["model"]`` added, plus ``("model", {"model", "run_dir"})`` when a model's run starts."""
    slugs = [model_slug(m) for m in config.models]
    if len(set(slugs)) != len(slugs):
        raise UserError(f"--models {','.join(config.models)}: two models map to the same run directory "
                        f"name ({', '.join(slugs)})")
    check_models([m for model in config.models for m in run_models(config.run_config(model, [], 1))])
    # before anything is written
    check_tasks(config.pools, sim=any(is_sim(m) for m in config.models))
    manifest = load_manifest(config.manifest)
    task_dirs = register_tasks(manifest, config.pools)
    if not task_dirs:
        raise UserError(f"every task under {', '.join(map(str, config.pools))} is excluded in {config.manifest}")
    report = DifficultyReport(config.manifest, save_manifest(config.manifest, manifest), [t.name for t in task_dirs])
    plans = []
    for model, slug, share in zip(config.models, slugs, split_concurrency(config.concurrency, len(slugs)),
                                  strict=True):
        fingerprint = settings_fingerprint(config.run_config(model, [], share))
        todo = [t for t in task_dirs
                if not carried_over(t.name, manifest.tasks[t.name], model, fingerprint, config.n, config.out / slug)]
        run_config = config.run_config(model, [t.resolve() for t in todo], share)
        if todo:
            prepare_run_dir(config.out / slug, run_config)
        plans.append((ModelRun(model, config.out / slug, carried=len(task_dirs) - len(todo)), run_config,
                      fingerprint))
    report.runs = [run for run, _, _ in plans]

    async def one(run: ModelRun, run_config: RunConfig, fingerprint: str) -> None:
        from modularrsi.rollouts.run import execute

        finished: dict[str, list] = {}

        def tagged(event: str, data: dict) -> None:
            if event == "finished":
                run.attempts += 1
                run.reused += int(data["reused"])
                run.invalid += int(data["attempt"].invalid_reason is not None)
                task_done(data["attempt"])
            for observer in observers or []:
                observer(event, {**data, "model": run.model})

        def task_done(attempt) -> None:  # a task's n attempts finished: into the manifest at once
            mine = finished.setdefault(attempt.task, [])
            mine.append(attempt)
            if len(mine) == config.n:
                valid = [a for a in mine if a.invalid_reason is None]
                set_success(manifest.tasks[attempt.task], run.model, len(valid), sum(a.passed for a in valid),
                            fingerprint)
                report.manifest_hash = save_manifest(config.manifest, manifest)

        if not run_config.tasks:
            return  # every task carried over in the manifest
        tagged("model", {"run_dir": str(run.run_dir)})
        results = await execute(run_config, run.run_dir.resolve(), [tagged])
        record(manifest, run.model, results, fingerprint)
        report.manifest_hash = save_manifest(config.manifest, manifest)

    outcomes = await asyncio.gather(*(one(*plan) for plan in plans), return_exceptions=True)
    for outcome in outcomes:  # every model that finished is recorded before the first failure is raised
        if isinstance(outcome, BaseException):
            raise outcome
    write_json(config.out / "difficulty.json", report_json(report, manifest))
    return report


def report_json(report: DifficultyReport, manifest: PoolManifest) -> dict:
    """``difficulty.json``: per model how the run went, per task per-model and pooled rates."""
    rows = []
    for name in report.tasks:
        entry = manifest.tasks[name]
        per_model = {m: {**s, "rate": round(s["passes"] / s["attempts"], 4) if s.get("attempts") else None}
                     for m, s in entry.success.items()}
        rows.append({"task": name, "category": entry.category, "success": per_model,
                     "success_rate": entry.success_rate, "success_ci95": entry.success_ci95})
    return {"manifest": str(report.manifest), "manifest_hash": report.manifest_hash,
            "simulated": any(is_sim(r.model) for r in report.runs),
            "runs": [{"model": r.model, "run_dir": str(r.run_dir), "attempts": r.attempts, "reused": r.reused,
                      "invalid": r.invalid, "carried_tasks": r.carried} for r in report.runs],
            "tasks": rows}
