"""``modularrsi evolve``: lanes of epochs, then integration, Function Merge, freeze and evaluation.

One resumable pipeline of small stages with plain data in between (docs/evolve.md), in rooms a
reader of the paper finds: :mod:`.lane` (the epoch loop of one lane: sample → buckets → findings →
directions → edit → gates → promote), :mod:`.integration` (combine the lanes, resolve conflicts under
the same gates), :mod:`.finish` (Function Merge, freeze, eval). :class:`Evolution` holds what they share
— the config, the run directory's :class:`~modularrsi.evolve.layout.RunLayout`, the trajectory memory,
the history, the attempt slots and the role models — and runs them in order.

A stage whose output file exists is not run again; every file is written atomically and a stage's
output is written only after the stage finished, so a run killed at any point resumes where it stood
and, with the same seed, ends in the same state as an uninterrupted one: the same buckets, findings,
proposals, verdicts, promotions and frozen library (the agent's model calls are seeded per attempt; the
sim analyst, editor and reviewer are deterministic). Step and token counts are the exception in sim:
they include turns spent waiting for a command still running, which depends on the machine's load.

Lanes run concurrently and share only the attempt slots, the budget and the samples of identical
(generation, seed) pairs — every lane starts from the same generation, so epoch 0 is sampled once.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from modularrsi.evolve import finish, integration, share
from modularrsi.evolve.context import Observer, RunContext
from modularrsi.evolve.lane import lanes_for, run_lane
from modularrsi.evolve.libraryops import copy_generation
from modularrsi.evolve.memory import TrajectoryMemory
from modularrsi.evolve.proposal import manifest_id
from modularrsi.evolve.runfiles import EvolveLock, Lane, write_model
from modularrsi.harness import BASELINE
from modularrsi.harness.library import load_generation
from modularrsi.models.base import BudgetExceeded
from modularrsi.rollouts.run import resolve_tasks
from modularrsi.rollouts.runner import BudgetStop
from modularrsi.rollouts.state import RunState
from modularrsi.tasks.model import discover
from modularrsi.util.errors import UserError
from modularrsi.util.files import write_yaml

__all__ = ["Evolution", "Observer"]
ROLES = ("agent", "analyst", "editor", "reviewer")


class Evolution(RunContext):
    """One evolution run in ``run_dir`` (new or resumed)."""

    # ------------------------------------------------------------------ the run
    async def run(self) -> RunState:
        """Run (or resume) the evolution. A spending cap reached anywhere stops it with
        :class:`BudgetStop` naming this run directory; the state says ``stopped_budget``. The preflight
        (:meth:`check`) runs first, before anything is written; every run inside reuses it."""
        self.check()
        try:
            return await self._run()
        except (BudgetStop, BudgetExceeded) as exc:
            self.set_state(status="stopped_budget", reason=str(exc).split(";")[0])
            raise BudgetStop(f"budget stop: {str(exc).split(';')[0].removeprefix('budget stop: ')}; raise the "
                             f"cap in {self.layout.config} and continue with --resume {self.run_dir}") from None

    def check(self) -> None:
        """Every role's model answers (with its key), the environment can start trials here, and every
        evolution and held-out task is usable: refused in one line otherwise."""
        from modularrsi.models import roles
        from modularrsi.models.settings import is_sim
        from modularrsi.rollouts.preflight import check_environment, check_models, check_tasks

        c = self.config
        check_models([c.role(role) for role in roles.ROLES])
        check_environment(c.env, c.env_kwargs)
        check_tasks([*c.tasks, *c.eval_tasks], sim=is_sim(c.role("agent").model))
        share.check_shareable(c, self.run_dir)
        if c.generation is not None:
            load_generation(c.generation)  # a starting generation that does not load is refused here

    async def _run(self) -> RunState:
        c = self.config
        start, lanes = await self.prepare()
        share.take_replies(c, self.layout.cache)
        self.set_state(status="running", stage="lanes", mode=c.mode, epochs=c.epochs)
        with TrajectoryMemory.in_run(self.run_dir) as memory:
            self.memory = memory
            finals = await asyncio.gather(*(run_lane(self, lane, start) for lane in lanes))
            self.set_state(stage="integration")
            integrated = await integration.integrate(self, start, lanes, dict(zip([lane.name for lane in lanes],
                                                                                  finals, strict=True)))
            self.set_state(stage="merge")
            frozen = finish.freeze(self, finish.merge(self, integrated), start)
            evaluated: dict[str, object] = {}
            if c.eval_tasks:
                self.set_state(stage="eval")
                result = await finish.evaluate_frozen(self, start, frozen)
                evaluated = {"eval": str(self.layout.eval_result), "acc_diff": result.delta("acc").diff}
        return self.set_state(status="done", stage="done", frozen=str(frozen), frozen_id=manifest_id(frozen),
                              **evaluated)

    async def prepare(self) -> tuple[Path, list[Lane]]:
        """Resolve the tasks, then create (or reuse) the run directory: config, start, lock."""
        c = self.config
        template = self.run_template().model_copy(update={"tasks": c.tasks, "manifest": c.manifest})
        self.task_dirs = {name: Path(str(task.path)) for name, task in await resolve_tasks(template)}
        if not self.task_dirs:
            raise UserError(f"no tasks found under {', '.join(map(str, c.tasks))}")
        clash = sorted({p.name for p in discover(c.eval_tasks)} & set(self.task_dirs)) if c.eval_tasks else []
        if clash:
            raise UserError(f"eval_tasks overlap the evolution tasks (e.g. {clash[0]}); held-out tasks must be "
                            "disjoint from the tasks evolved on")
        if c.eval_manifest is not None:  # its selection must resolve now, not after the evolution
            await resolve_tasks(template.model_copy(update={"tasks": c.eval_tasks, "manifest": c.eval_manifest}))
        self.run_dir.mkdir(parents=True, exist_ok=True)  # only a run whose tasks resolve gets a directory
        if not self.layout.config.exists():
            write_yaml(self.layout.config, c.dump())
        start = self.layout.start
        if not start.exists():
            copy_generation(c.generation or BASELINE, start)
        lanes = lanes_for(c)
        write_model(self.layout.lock, EvolveLock(mode=c.mode, contrast=c.contrast, lanes=lanes,
                                                 start=manifest_id(start), tasks=sorted(self.task_dirs), seed=c.seed,
                                                 roles={r: c.role(r).model for r in ROLES}))
        return start, lanes
