"""What an editor is given for one edit (:class:`EditRequest`; :mod:`modularrsi.evolve.editor` re-exports it)."""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from modularrsi.evolve.findings import Direction
from modularrsi.evolve.history import Brief
from modularrsi.evolve.reply_cases import RecordedReply

__all__ = ["EditRequest"]


class EditRequest(BaseModel):
    """What the editor may know. ``modules``: the files it may touch (one module when locked)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    direction: Direction
    parent_dir: Path
    modules: list[str] = Field(description="Modules whose files the editor may change.")
    excerpts: list[str] = Field(default_factory=list, description="Trajectory excerpts of the findings.")
    history: list[Brief] = Field(default_factory=list, description="Evolution History entries of "
                                          "the module's functions (earlier changes and what became of them).")
    attempt: int = Field(default=0, description="Candidate slot for this direction (varies seeded choices).")
    avoid: list[str] = Field(default_factory=list, description="Files other candidates of this direction wrote: "
                             "write a different mechanism.")
    replies: list[RecordedReply] = Field(default_factory=list, description="The agent model's replies in the "
                                         "direction's trials, refused and read (a Tool Use edit's parse is checked "
                                         "against them).")

    @property
    def module(self) -> str:
        return self.direction.module
