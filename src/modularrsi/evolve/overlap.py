"""What a frozen library evolved on, so that ``eval`` refuses those tasks by default.

Freezing writes ``<frozen>/evolution_tasks.json`` (:class:`EvolutionTasks`): every evolution task's name
and content hash. A held-out task *overlaps* when its name or its content (a renamed copy) matches one of
them. ``eval`` refuses overlapping tasks unless ``--allow-overlap`` is given, and then labels the result.
The file sits beside the generation's manifest and is not part of its id.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from pydantic import BaseModel, ConfigDict

from modularrsi.util.errors import UserError
from modularrsi.util.files import write_json

FILE = "evolution_tasks.json"


class TaskRecord(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    name: str
    sha256: str


class EvolutionTasks(BaseModel):
    """``evolution_tasks.json``: the tasks a frozen library evolved on."""

    model_config = ConfigDict(extra="forbid")
    schema_version: int = 1
    tasks: list[TaskRecord]


def task_hash(task_dir: Path) -> str:
    """SHA-256 over a task directory's files (relative paths and bytes, in path order)."""
    digest = hashlib.sha256()
    for path in sorted(p for p in task_dir.rglob("*") if p.is_file()):
        digest.update(str(path.relative_to(task_dir)).encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


def record_evolution_tasks(generation: Path, task_dirs: list[Path]) -> None:
    write_json(generation / FILE, EvolutionTasks(tasks=[TaskRecord(name=p.name, sha256=task_hash(p))
                                                       for p in sorted(task_dirs)]).model_dump(mode="json"))


def evolution_tasks(generation: Path) -> EvolutionTasks | None:
    """The record of ``generation``, or None when it was not frozen by an evolution (e.g. gen_0)."""
    path = generation / FILE
    if not path.is_file():
        return None
    try:
        return EvolutionTasks.model_validate_json(path.read_text())
    except ValueError as exc:
        raise UserError(f"{path}: unreadable ({str(exc).splitlines()[0]}); re-freeze the library") from None


def overlapping(generation: Path, tasks: list[tuple[str, Path | None]]) -> list[str]:
    """Names of ``tasks`` (name, local directory or None) that ``generation`` evolved on, by name or content."""
    record = evolution_tasks(generation)
    if record is None:
        return []
    names = {t.name for t in record.tasks}
    hashes = {t.sha256 for t in record.tasks}
    return sorted(name for name, path in tasks
                  if name in names or (path is not None and path.is_dir() and task_hash(path) in hashes))
