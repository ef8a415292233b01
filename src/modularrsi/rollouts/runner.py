"""Run K attempts per task through Harbor trials, resumably, into a run directory.

Run directory (the API of a run; every file written atomically)::

    runs/<run-id>/config.yaml    as asked            lock.json   as resolved (versions, tasks, generation)
                  state.json     where it stands     results.json metrics (see results.py)
                  trials/<task>__a<k>/               Harbor's own trial output (result.json last)

An attempt is finished when Harbor wrote its ``result.json``; a resumed run reuses finished attempts
and re-runs the others from scratch, so an interrupted run (Ctrl-C, kill -9) loses and duplicates
nothing. Each attempt's seed is derived from the run seed, the task and the attempt index.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import shutil
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from harbor.models.trial.config import AgentConfig, TaskConfig
from harbor.models.trial.result import TrialResult

from modularrsi.models.budget import BudgetLedger
from modularrsi.rollouts.config import RunConfig
from modularrsi.rollouts.metrics import Attempt
from modularrsi.rollouts.state import AttemptSeed, LockManifests, RunLock, RunState, TaskRef, write_state
from modularrsi.tasks.trials import environment_name, exception_text, invalid_reason, reward_of, run_trial
from modularrsi.util.errors import Stopped
from modularrsi.util.files import write_json


class BudgetStop(Stopped):
    """The run's token or cost cap was reached; finished attempts are kept, the rest did not start."""


@dataclass(frozen=True)
class Job:
    """One attempt to make: a task, its attempt index, its seed and its trial directory name."""

    task: TaskConfig
    name: str
    index: int
    seed: int

    @property
    def trial_name(self) -> str:
        return f"{self.name}__a{self.index}"


def attempt_seed(run_seed: int, task: str, index: int) -> int:
    return int(hashlib.sha256(f"{run_seed}:{task}:{index}".encode()).hexdigest()[:8], 16)


def attempt_from_result(result: TrialResult, index: int) -> Attempt:
    meta = (result.agent_result.metadata or {}) if result.agent_result else {}
    agent = result.agent_result
    error = None
    if result.exception_info is not None:
        error = exception_text(result.exception_info.exception_type, result.exception_info.exception_message)
    wall = (result.finished_at - result.started_at).total_seconds() if result.started_at and result.finished_at else 0
    return Attempt(task=result.task_name, attempt=index, reward=reward_of(result), steps=int(meta.get("turns", 0)),
                   input_tokens=(agent.n_input_tokens or 0) if agent else 0,
                   output_tokens=(agent.n_output_tokens or 0) if agent else 0,
                   cost_usd=(agent.cost_usd or 0.0) if agent else 0.0, wall_s=round(wall, 3), error=error,
                   environment=environment_name(result.config.environment), invalid=invalid_reason(result))


#: Exceptions a trial records when the run itself was stopped (an interrupt, a shutdown), not the attempt.
INTERRUPTED = frozenset({"CancelledError", "KeyboardInterrupt"})


def read_finished(trial_dir: Path) -> TrialResult | None:
    """The trial's result when it finished; None when it never ran, its result is unreadable, or the run was
    stopped while it ran (a resumed run runs it again rather than counting it as an invalid attempt)."""
    path = trial_dir / "result.json"
    if not path.is_file():
        return None
    try:
        result = TrialResult.model_validate_json(path.read_text())
    except ValueError:
        return None
    if result.exception_info is not None and result.exception_info.exception_type in INTERRUPTED:
        return None
    return result


def busy_seconds(spans: list[tuple[datetime, datetime]]) -> float:
    """Seconds in which at least one of these (start, finish) intervals was running: their union, so the idle
    time between an interrupted run and its resumption is not counted."""
    total, end = 0.0, None
    for start, finish in sorted(spans):
        if end is None or start > end:
            total, end = total + (finish - start).total_seconds(), finish
        elif finish > end:
            total, end = total + (finish - end).total_seconds(), finish
    return total


def trials_busy_seconds(run_dir: Path) -> float:
    """The seconds a run directory had trials running, over every session that ran or resumed it."""
    return busy_seconds([(r.started_at, r.finished_at) for path in sorted(run_dir.glob("trials/*/result.json"))
                         if (r := read_finished(path.parent)) and r.started_at and r.finished_at])


class Runner:
    """Runs the jobs of one run directory with bounded concurrency; observers see every attempt."""

    def __init__(self, config: RunConfig, run_dir: Path, jobs: list[Job],
                 observers: list[Callable[[str, dict], None]] | None = None, *,
                 slots: asyncio.Semaphore | None = None, budget_path: Path | None = None):
        """``slots``: a semaphore shared with other runs (e.g. an evolution's lanes) instead of one of
        ``config.concurrency``; ``budget_path``: a ledger shared with them (default: the run's own)."""
        self.config, self.run_dir, self.jobs = config, run_dir, jobs
        self.trials_dir = run_dir / "trials"
        self.observers = observers or []
        self.attempts: dict[str, Attempt] = {}
        self.skipped: list[str] = []
        self.slots = slots
        self.budget_path = budget_path or run_dir / "budget.json"
        self.ledger = BudgetLedger.shared(self.budget_path, config.max_tokens, config.max_cost_usd)

    def _emit(self, event: str, data: dict) -> None:
        for observer in self.observers:
            try:
                observer(event, data)
            except Exception as exc:  # noqa: BLE001 - observers are harmless: log, never raise
                logging.getLogger(__name__).warning("observer failed on %s: %s", event, exc)

    def _agent(self, job: Job) -> AgentConfig:
        cfg = self.config
        kwargs = {"seed": job.seed, "attempt": job.index, "max_turns": cfg.max_turns,
                  "budget_path": str(self.budget_path), "max_tokens": cfg.max_tokens,
                  "max_cost_usd": cfg.max_cost_usd, **cfg.agent_kwargs}
        if cfg.cache:
            kwargs["cache_path"] = str(self.run_dir / "cache.sqlite")
            if cfg.replay_cache is not None:
                kwargs["replay_cache_path"] = str(cfg.replay_cache)
        if cfg.generation:
            kwargs["generation"] = str(cfg.generation)
        # the agent's call settings (those left at their defaults are ModularAgent's defaults already, and
        # another agent asked for none gets none)
        kwargs.update(cfg.role("agent").model_dump(exclude={"model"}, exclude_defaults=True))
        if cfg.roles is not None and cfg.roles.composer is not None:
            kwargs.update(composer="task-aware", composer_model=cfg.roles.composer.model_dump())
        return AgentConfig(import_path=cfg.agent, model_name=cfg.model, kwargs=kwargs)

    async def _run_one(self, job: Job, slots: asyncio.Semaphore) -> None:
        trial_dir = self.trials_dir / job.trial_name
        finished = read_finished(trial_dir)
        if finished is None:
            async with slots:
                stop = self.ledger.exhausted()
                if stop:
                    self.skipped.append(job.trial_name)
                    self._emit("skipped", {"trial": job.trial_name, "reason": stop})
                    return
                if trial_dir.exists():
                    shutil.rmtree(trial_dir)
                self._emit("started", {"trial": job.trial_name})
                outcome = await run_trial(job.task, self._agent(job), self.trials_dir, self.config.env,
                                          job.trial_name, self.config.timeout_multiplier, self.config.env_kwargs)
                if outcome.result is None:  # it could not start: no result.json, so a resumed run tries again
                    self._record(job, Attempt(task=job.name, attempt=job.index, reward=None,
                                              environment=outcome.environment, error=outcome.invalid,
                                              invalid=outcome.invalid), False)
                    return
                finished = outcome.result
            reused = False
        else:
            reused = True
        self._record(job, attempt_from_result(finished, job.index), reused)

    def _record(self, job: Job, attempt: Attempt, reused: bool) -> None:
        self.attempts[job.trial_name] = attempt
        self._emit("finished", {"trial": job.trial_name, "attempt": attempt, "reused": reused})
        self._save_state()

    def _save_state(self) -> None:
        write_state(self.run_dir / "state.json", RunState(
            status="running", attempts_total=len(self.jobs), attempts_done=len(self.attempts), updated_at=time.time()))

    async def run(self) -> list[Attempt]:
        self.trials_dir.mkdir(parents=True, exist_ok=True)
        slots = self.slots or asyncio.Semaphore(max(1, self.config.concurrency))
        await asyncio.gather(*(self._run_one(job, slots) for job in self.jobs))
        if self.skipped:
            write_state(self.run_dir / "state.json", RunState(
                status="stopped_budget", reason=self.ledger.exhausted(), attempts_total=len(self.jobs),
                attempts_done=len(self.attempts), updated_at=time.time()))
            raise BudgetStop(f"budget stop: {self.ledger.exhausted()}; {len(self.attempts)} of {len(self.jobs)} "
                             f"attempts done, the rest not started; raise the cap and resume with --resume "
                             f"{self.run_dir}")
        return [self.attempts[j.trial_name] for j in self.jobs]


def write_lock(run_dir: Path, config: RunConfig, jobs: list[Job], generation_id: str,
               manifests: LockManifests | None = None) -> None:
    from importlib.metadata import version

    tasks = sorted({j.name: str(j.task.path) for j in jobs}.items())
    lock = RunLock(modularrsi=version("modularrsi"), harbor=version("harbor"), litellm=version("litellm"),
                   model=config.model, agent=config.agent, generation=generation_id, k=config.k, seed=config.seed,
                   environment=config.env, manifests=manifests or LockManifests(),
                   tasks=[TaskRef(name=n, path=p) for n, p in tasks],
                   attempts=[AttemptSeed(trial=j.trial_name, seed=j.seed) for j in jobs])
    write_json(run_dir / "lock.json", lock.model_dump(mode="json"))


