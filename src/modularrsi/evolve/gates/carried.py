"""Undecided confirm statistics, kept between epochs in one JSON file (``<run>/undecided.json``).

A confirm that reaches its round cap undecided keeps its :class:`~modularrsi.evolve.gates.sequential.Tally`
under "parent id→staging id", so the same edit on the same parent goes on from it in a later epoch (the
test is anytime-valid, so going on is allowed). A decided change's entry is dropped only once the
decision is on record (:meth:`Carried.forget`, from the run's record step): a run killed in between
resumes that confirm from the statistic, not from zero.
"""

from __future__ import annotations

import json
from pathlib import Path

from modularrsi.evolve.gates.sequential import Tally
from modularrsi.util.files import write_json


class Carried:
    """The carried statistics of one run; ``path`` None keeps nothing."""

    def __init__(self, path: Path | None):
        self.path = path

    def _all(self) -> dict:
        return json.loads(self.path.read_text()) if self.path is not None and self.path.is_file() else {}

    def get(self, parent_id: str, staging_id: str) -> Tally | None:
        saved = self._all().get(f"{parent_id}→{staging_id}")
        return Tally.model_validate(saved) if saved else None

    def keep(self, parent_id: str, staging_id: str, tally: Tally) -> None:
        if self.path is not None:
            write_json(self.path, {**self._all(), f"{parent_id}→{staging_id}": tally.model_dump(mode="json")})

    def forget(self, parent_id: str, staging_id: str | None) -> None:
        kept = self._all()
        if staging_id is not None and kept.pop(f"{parent_id}→{staging_id}", None) is not None:
            write_json(self.path, kept)
