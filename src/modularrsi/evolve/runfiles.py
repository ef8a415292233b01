"""What each JSON file of an evolution's run directory holds: one model per file, shared by the stage
that writes it and every reader (the pipeline on resume, the report, ``modularrsi show``).

Where each file lives is :class:`~modularrsi.evolve.layout.RunLayout`'s business. Files are written
atomically by :func:`write_model`; optional fields a stage did not set are left out of the file.
``state.json`` is :class:`modularrsi.rollouts.state.RunState` (every kind of run has one); each
generation's ``manifest.json`` is :class:`~modularrsi.harness.manifest.GenerationManifest` (re-exported
here for readers of a run directory); ``budget.json`` is :class:`modularrsi.models.budget.BudgetFile`.
"""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from modularrsi.evolve.libraryops import Merge
from modularrsi.harness.manifest import FunctionEntry, GenerationManifest
from modularrsi.models.settings import is_sim
from modularrsi.util.files import write_json

__all__ = ["Conflict", "EpochOutcome", "EpochSample", "EvolveLock", "FrozenRecord", "FunctionEntry",
           "GenerationManifest", "IntegrationResult", "Lane", "LaneState", "MergeRecord", "read_model", "write_model"]


class Lane(BaseModel):
    """A lane: the modules it evolves and whether each change is locked to its direction's module."""

    model_config = ConfigDict(frozen=True)
    name: str
    modules: list[str]
    locked: bool = True


class EvolveLock(BaseModel):
    """``lock.json``: the run as resolved (lanes, starting generation, tasks, role models)."""

    mode: str
    contrast: bool = True
    lanes: list[Lane] = Field(default_factory=list)
    start: str = ""
    tasks: list[str] = Field(default_factory=list)
    seed: int = 0
    roles: dict[str, str] = Field(default_factory=dict)

    @property
    def simulated(self) -> bool:
        """The agent is the offline simulator."""
        return is_sim(self.roles.get("agent", ""))


class LaneState(BaseModel):
    """``lanes/<lane>/state.json``: epochs done and the lane's current generation directory."""

    lane: str
    modules: list[str]
    epochs_done: int = 0
    generation: str = "gen_0"
    generations: list[str] = Field(default_factory=lambda: ["gen_0"])


class EpochSample(BaseModel):
    """``epoch_<e>/sample.json``: which rollouts the epoch read (``run``: relative to the run directory)."""

    run: str
    seed: int
    generation: str
    tasks: list[str]
    skipped_cooldown: list[str] = Field(default_factory=list)
    acc: float | None = None
    simulated: bool = False


class EpochOutcome(BaseModel):
    """``epoch_<e>/outcome.json``: what the epoch promoted (written last: its presence means done)."""

    lane: str
    epoch: int
    parent: str
    promoted: list[str] = Field(default_factory=list)
    promoted_as: str | None = None
    generation: str
    directions: int = 0
    acc: float | None = None
    same_epoch_pair_rate: float = 0.0
    memory_pair_rate: float = 0.0


class Conflict(BaseModel):
    """A task a lane's generation passes that the combined library never passes."""

    task: str
    lane: str
    lane_passes: int
    lane_attempts: int


class IntegrationResult(BaseModel):
    """``integration/result.json``: the combined library, its conflicts and the library chosen."""

    evolved_modules: list[str] | None = None
    combined: str | None = None
    skipped: str | None = None
    acc: float | None = None
    run: str | None = None
    conflicts: list[Conflict] | None = None
    library: str
    generation: str | None = None


class MergeRecord(BaseModel):
    """``merge.json``: the library after Function Merge and the merges made."""

    library: str
    generation: str
    merges: list[Merge] = Field(default_factory=list)


class FrozenRecord(BaseModel):
    """``frozen.json``: the frozen library, what changed from the start and its active functions."""

    generation: str
    path: str = "frozen"
    start: str
    changed_modules: list[str] = Field(default_factory=list)
    functions: dict[str, list[str]] = Field(default_factory=dict)
    descriptions: dict[str, str] = Field(default_factory=dict)


def write_model(path: Path, model: BaseModel) -> None:
    write_json(path, model.model_dump(mode="json", exclude_none=isinstance(model, IntegrationResult)))


def read_model[M: BaseModel](path: Path, model: type[M]) -> M:
    return model.model_validate_json(path.read_text())
