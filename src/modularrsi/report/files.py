"""Reading a run directory's files for a report: only reads, never creates or changes anything.

A missing file is an absent part (None, {} or []): run files are written atomically, so a present file is
complete. A file that exists but is not what it should be raises :class:`UnreadableRun` naming it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError

from modularrsi.util.errors import UserError
from modularrsi.util.jsontypes import Unvalidated


class UnreadableRun(UserError):
    """A file of the run exists but cannot be read as what it should be; names the file."""


def read_json(path: Path) -> Any:
    """The JSON in ``path``; None when the file does not exist (yet: run files are written atomically,
    so a present file is complete). UnreadableRun when it exists but is not JSON."""
    try:
        text = path.read_text()
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise UnreadableRun(f"{path}: cannot read ({exc.strerror})") from None
    try:
        return json.loads(text)
    except ValueError as exc:
        raise UnreadableRun(f"{path}: not valid JSON ({exc})") from None


def read_dict(path: Path) -> Unvalidated:
    """The JSON object in ``path``; {} when the file does not exist; UnreadableRun when it is something else."""
    data = read_json(path)
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise UnreadableRun(f"{path}: expected a JSON object, found {type(data).__name__}")
    return data


def read_model[M: BaseModel](path: Path, model: type[M]) -> M | None:
    """``path`` validated as ``model``; None when it does not exist; UnreadableRun when it does not fit."""
    data = read_json(path)
    if data is None:
        return None
    if not isinstance(data, dict):
        raise UnreadableRun(f"{path}: expected a JSON object, found {type(data).__name__}")
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(part) for part in first["loc"]) or "(top level)"
        raise UnreadableRun(f"{path}: {where}: {first['msg']} (not a {model.__name__} this version reads)") from None


def read_lines[M: BaseModel](path: Path, model: type[M]) -> list[M]:
    """One model per JSON line; unreadable lines are skipped."""
    try:
        lines = path.read_text().splitlines()
    except OSError:
        return []
    out = []
    for line in lines:
        if line.strip():
            try:
                out.append(model.model_validate_json(line))
            except ValidationError:
                continue
    return out
