"""The Evolution History (``history.jsonl``): every change proposed and what became of it.

One :class:`Change` per proposal (promoted or not), keyed by ``id`` (``<lane>/e<epoch>/<proposal>``;
integration and merge changes use ``integration/...`` and ``merge/...``). Later events update the
entry they concern (``fate``): a promoted function that integration reverts or Function Merge folds
away says so. The editor reads the entries of the module it edits. The file is rewritten atomically
on every change, so a killed run leaves either the old or the new history, never half a line.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from modularrsi.evolve.gates import GateVerdict
from modularrsi.evolve.gates.sequential import ExecutionDetails
from modularrsi.util.files import write_text


class Change(BaseModel):
    """One proposed change. ``outcome``: promoted, rejected (``rejected_by`` names the gate) or
    editor_failed; ``fate``: what happened to a promoted change afterwards (kept unless said)."""

    model_config = ConfigDict(extra="forbid")

    id: str
    lane: str
    epoch: int
    module: str
    direction: str = ""
    mechanism: str = ""
    summary: str = ""
    tasks: list[str] = Field(default_factory=list)
    vote: float = 0.0
    editor: str = ""
    description: str = ""
    parent: str = ""
    generation: str | None = Field(default=None, description="Staging generation id (None if no edit).")
    files: list[str] = Field(default_factory=list)
    diff: str = ""
    gates: list[GateVerdict] = Field(default_factory=list)
    outcome: str
    rejected_by: str | None = None
    reason: str = ""
    fate: str = "kept"
    promoted_as: str | None = Field(default=None, description="Lane generation directory when promoted.")

    @property
    def undecided(self) -> bool:
        """Rejected only because its confirm reached the cap; its statistic is kept for a later epoch."""
        last = ExecutionDetails.of(self.gates[-1]) if self.gates else None
        return last is not None and last.decision == "undecided"

    @classmethod
    def decided(cls, fields: dict[str, Any], verdicts: list[GateVerdict]) -> Change:
        """The change described by ``fields`` as the gate chain left it: promoted if the last verdict
        passed, otherwise rejected by that gate."""
        last = verdicts[-1]
        return cls(**fields, gates=list(verdicts), outcome="promoted" if last.passed else "rejected",
                   rejected_by=None if last.passed else last.gate, reason=last.reason)


class Brief(BaseModel):
    """What the editor sees of one change of the module it edits: no rewards, no task names."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    change: str = ""
    mechanism: str = ""
    files: list[str] = Field(default_factory=list)
    outcome: str
    rejected_by: str | None = None
    reason: str = ""
    fate: str = "kept"
    undecided: bool = False


class History:
    """``history.jsonl`` of one run."""

    def __init__(self, path: Path):
        self.path = path
        self.changes: dict[str, Change] = {}
        if path.is_file():
            for line in path.read_text().splitlines():
                if line.strip():
                    change = Change.model_validate_json(line)
                    self.changes[change.id] = change

    def record(self, change: Change) -> None:
        self.changes[change.id] = change
        self._save()

    def set_fate(self, change_id: str, fate: str) -> None:
        if change_id in self.changes:
            self.changes[change_id] = self.changes[change_id].model_copy(update={"fate": fate})
            self._save()

    def _save(self) -> None:
        write_text(self.path, "".join(json.dumps(c.model_dump(mode="json"), sort_keys=True) + "\n"
                                      for c in self.changes.values()))

    def for_module(self, module: str) -> list[Change]:
        return [c for c in self.changes.values() if c.module == module]

    def promoted(self, lane: str | None = None) -> list[Change]:
        return [c for c in self.changes.values() if c.outcome == "promoted" and (lane is None or c.lane == lane)]

    def brief(self, module: str) -> list[Brief]:
        """What the editor sees of the module's history: no rewards, no task names."""
        def reason(c: Change) -> str:
            if c.undecided:
                return "undecided: the evidence so far neither confirms nor refutes it (it may be tried again)"
            if c.rejected_by == "execution":
                return "did not move its evidence tasks without regressing anchors"
            return c.reason[:200]

        return [Brief(change=c.id, mechanism=c.mechanism, files=c.files, outcome=c.outcome, rejected_by=c.rejected_by,
                      reason=reason(c), fate=c.fate, undecided=c.undecided) for c in self.for_module(module)]
