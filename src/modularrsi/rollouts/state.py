"""``state.json``: where a run stands, for ``--resume``, ``modularrsi show`` and the report.

One model for every kind of run directory: ``modularrsi run`` writes the attempt counts, ``modularrsi
evolve`` the stage and, when done, where the frozen library and its evaluation are. Fields a writer does
not set are left out of the file (``None``). Updates go through :func:`update_state`, which keeps the
fields already written. ``budget.json`` (every kind of run has one once a model is metered) is
:class:`modularrsi.models.budget.BudgetFile`, re-exported here for the readers of a run directory.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from modularrsi.models.budget import BudgetFile as BudgetFile  # budget.json, for readers of a run directory
from modularrsi.models.settings import is_sim
from modularrsi.util.files import write_json


class RunState(BaseModel):
    """``state.json`` of a run (``status``: running, done or stopped_budget)."""

    model_config = ConfigDict(extra="ignore")

    status: str | None = None
    stage: str | None = None
    mode: str | None = None
    epochs: int | None = None
    reason: str | None = None
    attempts_total: int | None = None
    attempts_done: int | None = None
    frozen: str | None = None
    frozen_id: str | None = None
    eval: str | None = None
    acc_diff: float | None = None
    updated_at: float | None = None

    def dump(self) -> dict:
        return self.model_dump(mode="json", exclude_none=True)


def write_state(path: Path, state: RunState) -> None:
    write_json(path, state.dump())


def update_state(path: Path, **fields: object) -> RunState:
    """Set ``fields`` in the ``state.json`` at ``path`` (keeping the others) and stamp ``updated_at``."""
    old = RunState.model_validate(json.loads(path.read_text())) if path.is_file() else RunState()
    state = old.model_copy(update={**fields, "updated_at": time.time()})
    write_state(path, state)
    return state


class TaskRef(BaseModel):
    name: str
    path: str


class AttemptSeed(BaseModel):
    trial: str
    seed: int


class LockManifests(BaseModel):
    """Pool manifests the run used: the one it evolved on (its hash) and those it is disjoint from."""

    evolved_on: str | None = None
    disjoint_from: dict[str, str] = Field(default_factory=dict)


class RunLock(BaseModel):
    """``lock.json`` of ``modularrsi run``: the run as resolved (versions, model, generation, tasks, seeds)."""

    modularrsi: str = ""
    harbor: str = ""
    litellm: str = ""
    model: str = ""
    agent: str = ""
    generation: str = ""
    k: int = 0
    seed: int = 0
    environment: str = ""
    manifests: LockManifests = Field(default_factory=LockManifests)
    tasks: list[TaskRef] = Field(default_factory=list)
    attempts: list[AttemptSeed] = Field(default_factory=list)

    @property
    def simulated(self) -> bool:
        """The agent is the offline simulator."""
        return is_sim(self.model)
