"""The services an evolution's stages share (:class:`RunContext`): the lane's epoch loop
(:mod:`.lane`), integration (:mod:`.integration`) and the finish (:mod:`.finish`) take one.

Samples are shared: rollouts of one (generation, seed) pair are made once, in ``samples/<gen>-s<seed>/``,
whichever lane or stage asks first; every attempt of every stage waits for one of ``config.concurrency``
slots. A decided change is written once, into the Evolution History, before anyone reads it.
"""

from __future__ import annotations

import asyncio
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

from modularrsi.evolve import share
from modularrsi.evolve.analysis import Analyst, LLMAnalyst
from modularrsi.evolve.config import EvolveConfig
from modularrsi.evolve.editor import Editor, LLMEditor
from modularrsi.evolve.gates.carried import Carried
from modularrsi.evolve.gates.execution import ExecutionGate
from modularrsi.evolve.gates.review import ReviewGate
from modularrsi.evolve.history import Change, History
from modularrsi.evolve.layout import ProposalLayout, RunLayout
from modularrsi.evolve.memory import TrajectoryMemory
from modularrsi.evolve.proposal import manifest_id
from modularrsi.models.base import ChatModel
from modularrsi.models.registry import make_model
from modularrsi.models.settings import is_sim
from modularrsi.rollouts.config import INHERITED, RunConfig
from modularrsi.rollouts.results import RunResults
from modularrsi.rollouts.run import execute
from modularrsi.rollouts.state import RunState, update_state
from modularrsi.util.wing import offline

Observer = Callable[[str, dict], None]


class RunContext:
    """What the stages of one evolution run share: its config, run directory, memory, history, attempt
    slots, role models and gates. :class:`~modularrsi.evolve.pipeline.Evolution` runs the stages."""

    def __init__(self, config: EvolveConfig, run_dir: Path, observers: list[Observer] | None = None):
        self.config, self.run_dir, self.layout = config, run_dir, RunLayout(run_dir)
        self.observers = observers or []
        self.slots = asyncio.Semaphore(config.concurrency)  # attempts at once, shared by every stage
        self.sample_locks: dict[str, asyncio.Lock] = {}
        self.task_dirs: dict[str, Path] = {}
        self.memory: TrajectoryMemory = None  # type: ignore[assignment]  # opened by run()
        self.history = History(self.layout.history)

    def emit(self, event: str, **data: Any) -> None:
        for observer in self.observers:
            observer(event, data)

    def set_state(self, **fields: Any) -> RunState:
        return update_state(self.layout.state, **fields)

    def run_template(self) -> RunConfig:
        """The run settings of every trial this evolution makes (its tasks and generation set per run)."""
        return RunConfig.model_validate(self.config.model_dump(include=INHERITED))

    def role_model(self, role: str) -> ChatModel | None:
        """The model of an LLM role; None for ``sim`` (the sim roles need none)."""
        settings = self.config.role(role)
        if is_sim(settings.model):
            return None
        return make_model(settings, cache_path=self.layout.cache, budget_path=self.layout.budget,
                          max_tokens=self.config.max_tokens, max_cost_usd=self.config.max_cost_usd)

    def analyst(self) -> Analyst:
        """The analyst role: the LLM analyst over its model, or (``sim``) the offline world's rule-based one."""
        model = self.role_model("analyst")
        if model is None:
            return offline("sim_analyst:SimAnalyst")(self.config.analyst)
        return LLMAnalyst(model, thresholds=self.config.analyst)

    def editor(self) -> Editor:
        """The editor role: the LLM editor over its model, or (``sim``) the offline world's catalogue editor."""
        model = self.role_model("editor")
        if model is None:
            return offline("sim_editor:SimEditorRole")(seed=self.config.seed, bad_rate=self.config.editor.bad_rate)
        return LLMEditor(model, max_turns=self.config.editor.max_turns, form=self.config.editor.format,
                         rules=self.config.gates.review.rules)

    def review_gate(self) -> ReviewGate:
        return ReviewGate(self.role_model("reviewer"), sorted(self.task_dirs), self.config.gates.review)

    def execution_gate(self, where: ProposalLayout, seed: int) -> ExecutionGate:
        config = self.config.gates.execution.model_copy(update={"k": self.config.k, "seed": seed})
        return ExecutionGate(self.run_template(), where.execution, config, slots=self.slots,
                             budget_path=self.layout.budget, parent_run=self.run_shared,
                             carry_path=self.layout.root / "undecided.json")  # see gates.carried

    async def run_generation(self, generation: Path, seed: int, tasks: list[str]) -> tuple[Path, RunResults]:
        """Rollouts of ``generation`` on ``tasks`` at ``seed``; one shared directory per (generation, seed)."""
        config = self.run_template().model_copy(update={
            "tasks": [self.task_dirs[t] for t in tasks], "generation": generation, "seed": seed})
        return await self.run_shared(generation, config)

    async def run_shared(self, generation: Path, config: RunConfig) -> tuple[Path, RunResults]:
        """Run ``config`` in the one directory of its (generation, seed): an attempt (task, index) is made
        once, whichever lane, proposal or stage asks first (the execution gate's parent side too)."""
        key = f"{manifest_id(generation)}-s{config.seed}"
        async with self.sample_locks.setdefault(key, asyncio.Lock()):
            out = self.layout.sample(key)
            share.take(self.config, self.layout.root, out)
            results = await execute(config, out, slots=self.slots, budget_path=self.layout.budget, checked=True)
        return out, results

    def record(self, where: ProposalLayout, change: Change) -> None:
        """Keep a decided change: a rejected staging copy goes (the parent was only read), then the change
        goes into the history, the one place a decision is written (a resumed run reads it back there)."""
        if change.outcome != "promoted" and where.staging.exists():
            shutil.rmtree(where.staging)
        self.history.record(change)
        if not change.undecided:
            Carried(self.layout.root / "undecided.json").forget(change.parent, change.generation)

    def settle(self, where: ProposalLayout, change: Change) -> Change:
        """:meth:`record` a lane's change and tell the observers."""
        self.record(where, change)
        self.emit("gate", lane=change.lane, epoch=change.epoch, change=change.id, outcome=change.outcome,
                  rejected_by=change.rejected_by, reason=change.reason)
        return change
