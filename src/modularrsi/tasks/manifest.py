"""The pool manifest: what is known about a pool's tasks, which are excluded, and which are selected.

One JSON file (default ``<pool>/manifest.json``), written atomically, read by ``tasks check``,
``tasks overlap``, ``tasks difficulty``, ``tasks select`` and by runs that evolve on a pool. Its
identity is :func:`manifest_hash` (SHA-256 of its canonical JSON), which a run records so that an
evaluation can refuse tasks the harness was evolved on.

Format (``schema_version`` 1)::

    {
      "schema_version": 1,
      "pool": ["tasks/pool"],                      # the directories the tasks came from
      "tasks": {
        "<name>": {
          "path": "tasks/pool/<name>", "category": "...", "difficulty": "medium", "domain": "terminal",
          "success": {"<model>": {"attempts": 8, "passes": 3}},   # from `tasks difficulty`
          "success_rate": 0.375, "success_ci95": [0.14, 0.69],    # pooled over models (Wilson)
          "check": {"ok": true, "flags": ["weakly-verified"], ...} # from `tasks check`
        }
      },
      "exclusions": [{"task": "<name>", "reason": "...", "source": "overlap", "score": 0.93,
                      "neighbour": "<benchmark id>"}],
      "selection": {"distribution": "medium-centered", "bins": [...], "n": 120, "seed": 0,
                    "balance": "category", "train": ["..."], "holdout": ["..."]}
    }
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from modularrsi.util.errors import UserError
from modularrsi.util.files import write_json
from modularrsi.util.jsontypes import Options

SCHEMA_VERSION = 1


class Exclusion(BaseModel):
    model_config = ConfigDict(extra="forbid")
    task: str
    reason: str
    source: str = "manual"
    score: float | None = None
    neighbour: str | None = None


class CheckRecord(BaseModel):
    """The ``check`` field of a task entry (``tasks check --manifest``): verdict, flags, failures and the key
    figures of the last check."""

    model_config = ConfigDict(extra="allow")
    ok: bool
    flags: list[str] = Field(default_factory=list)
    failures: list[str] = Field(default_factory=list)
    checked_at: str = ""
    oracle: list[float | None] | None = None
    nop: float | None = None
    partial: float | None = None
    forgery: float | None = None
    steps: int | None = None
    words: int | None = None
    judge: dict[str, int] | None = None


class TaskEntry(BaseModel):
    model_config = ConfigDict(extra="allow")
    path: str
    category: str = "uncategorised"
    difficulty: str = "unknown"
    domain: str = "terminal"
    success: dict[str, dict[str, int]] = Field(default_factory=dict)
    success_rate: float | None = None
    success_ci95: list[float] | None = None
    measured_with: dict[str, str] = Field(default_factory=dict)  # model -> settings fingerprint of its entry
    check: CheckRecord | None = None


class SelectionBin(BaseModel):
    """One difficulty bin of a selection: its range of 1 − success rate, what was asked and what was taken."""

    model_config = ConfigDict(extra="allow")
    range: list[float]
    label: str
    share: float
    target: int
    available: int
    selected: int
    holdout: int


class Shortfall(BaseModel):
    """A bin short of tasks (``--allow-shortfall``): how many were missing and which bins filled in."""

    model_config = ConfigDict(extra="allow")
    bin: str
    missing: int
    filled_from: dict[str, int] = Field(default_factory=dict)


class Selection(BaseModel):
    model_config = ConfigDict(extra="allow")
    distribution: str
    n: int
    seed: int
    train: list[str]
    holdout: list[str] = Field(default_factory=list)
    bins: list[SelectionBin] = Field(default_factory=list)
    balance: str | None = None
    shares: list[float] | None = None
    holdout_fraction: float | None = None
    bins_by: str | None = None
    eligible: int | None = None
    shortfall: list[Shortfall] | None = None


class PoolManifest(BaseModel):
    model_config = ConfigDict(extra="forbid")
    schema_version: int = SCHEMA_VERSION
    pool: list[str] = Field(default_factory=list)
    tasks: dict[str, TaskEntry] = Field(default_factory=dict)
    exclusions: list[Exclusion] = Field(default_factory=list)
    selection: Selection | None = None

    def excluded(self) -> set[str]:
        return {e.task for e in self.exclusions}

    def exclude(self, exclusion: Exclusion) -> None:
        """Add or replace the exclusion of ``exclusion.task`` from the same source."""
        self.exclusions = [e for e in self.exclusions
                           if not (e.task == exclusion.task and e.source == exclusion.source)] + [exclusion]

    def train_tasks(self) -> list[str]:
        """The tasks to evolve on: the selection's train split, else every non-excluded task."""
        names = self.selection.train if self.selection else sorted(self.tasks)
        return [n for n in names if n not in self.excluded()]


def manifest_hash(manifest: PoolManifest) -> str:
    canonical = json.dumps(manifest.model_dump(mode="json"), sort_keys=True, separators=(",", ":"))
    return "sha256:" + hashlib.sha256(canonical.encode()).hexdigest()


def load_manifest(path: Path) -> PoolManifest:
    """Read a manifest; a missing file is an empty manifest; a broken one is a one-line error."""
    if not path.exists():
        return PoolManifest()
    try:
        return PoolManifest.model_validate_json(path.read_text())
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        raise UserError(f"{path}: field '{where}': {first['msg']}") from None
    except ValueError as exc:
        raise UserError(f"{path}: not a pool manifest ({exc})") from None


def save_manifest(path: Path, manifest: PoolManifest) -> str:
    """Write atomically; returns the manifest's hash."""
    write_json(path, manifest.model_dump(mode="json", exclude_none=True))
    return manifest_hash(manifest)


def entry_for(task_dir: Path, metadata: Options) -> TaskEntry:
    return TaskEntry(path=str(task_dir), category=str(metadata.get("category", "uncategorised")),
                     difficulty=str(metadata.get("difficulty", "unknown")),
                     domain=str(metadata.get("domain", "terminal")))
