"""A proposal: one module-locked change, as plain data between the editor and the gates.

Invariants (the static gate checks them against the directories, so a proposal cannot misreport):

- ``staging_dir`` is a complete generation written next to (never over) ``parent_dir``; the parent is
  never modified.
- ``changed_files`` are the POSIX paths, relative to the generation directory, of every file added,
  removed or modified between parent and staging (``manifest.json`` included), sorted; byte-code
  caches (``__pycache__``, ``*.pyc``) are ignored.
- ``diff`` is :func:`generation_diff` of the two directories: unified diffs of those files in the same
  order (``/dev/null`` for the missing side of an added or removed file).

Build one with :meth:`Proposal.build`, which computes ``parent_id``, ``changed_files`` and ``diff``.
"""

from __future__ import annotations

import difflib
import hashlib
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, field_validator

from modularrsi.harness.manifest import manifest_id
from modularrsi.harness.protocols import MODULES

IGNORED_PARTS = ("__pycache__",)
IGNORED_SUFFIXES = (".pyc",)


class Proposal(BaseModel):
    """A change confined (by intent; the static gate verifies it) to ``locked_module``."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    locked_module: str = Field(description="The module the change may touch (one of protocols.MODULES).")
    parent_dir: Path = Field(description="The parent generation directory (read only).")
    parent_id: str = Field(description="The parent generation's id (its manifest's `id`).")
    staging_dir: Path = Field(description="The staging generation directory holding the change.")
    changed_files: list[str] = Field(description="Relative paths of added/removed/modified files, sorted.")
    diff: str = Field(description="Unified diff parent → staging of the changed files.")
    description: str = Field(description="The editor's account: observed behaviour → mechanism → effect.")
    direction: str = Field(description="Summary of the direction (merged findings) the change addresses.")
    supporting_tasks: list[str] = Field(default_factory=list, description="Tasks whose findings support it.")

    @field_validator("locked_module")
    @classmethod
    def _known_module(cls, value: str) -> str:
        if value not in MODULES:
            raise ValueError(f"locked_module '{value}' is not one of {', '.join(MODULES)}")
        return value

    @classmethod
    def build(cls, locked_module: str, parent_dir: Path, staging_dir: Path, description: str, direction: str,
              supporting_tasks: list[str] | None = None) -> Proposal:
        """A proposal whose ``parent_id``, ``changed_files`` and ``diff`` are computed from the directories."""
        changed, diff = generation_diff(parent_dir, staging_dir)
        return cls(locked_module=locked_module, parent_dir=parent_dir, parent_id=manifest_id(parent_dir),
                   staging_dir=staging_dir, changed_files=changed, diff=diff, description=description,
                   direction=direction, supporting_tasks=list(supporting_tasks or []))

    def added_lines(self) -> list[str]:
        """The lines the diff adds (without the leading ``+``; file headers excluded)."""
        return [line[1:] for line in self.diff.splitlines() if line.startswith("+") and not line.startswith("+++")]


def tree_hashes(root: Path) -> dict[str, str]:
    """``{relative posix path: sha256}`` of every file under ``root`` except byte-code caches."""
    if not root.is_dir():
        return {}
    out = {}
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root)
        if path.is_file() and not set(rel.parts) & set(IGNORED_PARTS) and path.suffix not in IGNORED_SUFFIXES:
            out[rel.as_posix()] = hashlib.sha256(path.read_bytes()).hexdigest()
    return out


def changed_paths(parent_dir: Path, staging_dir: Path) -> list[str]:
    """Relative paths added, removed or modified between the two directories, sorted."""
    before, after = tree_hashes(parent_dir), tree_hashes(staging_dir)
    return sorted(p for p in before.keys() | after.keys() if before.get(p) != after.get(p))


def _lines(path: Path) -> list[str]:
    if not path.is_file():
        return []
    try:
        return path.read_text().splitlines(keepends=True)
    except UnicodeDecodeError:
        return [f"<binary file, sha256 {hashlib.sha256(path.read_bytes()).hexdigest()}>\n"]


def generation_diff(parent_dir: Path, staging_dir: Path) -> tuple[list[str], str]:
    """``(changed_files, unified diff text)`` from ``parent_dir`` to ``staging_dir``."""
    changed = changed_paths(parent_dir, staging_dir)
    chunks = []
    for rel in changed:
        old, new = parent_dir / rel, staging_dir / rel
        chunks.extend(difflib.unified_diff(
            _lines(old), _lines(new), fromfile=f"a/{rel}" if old.is_file() else "/dev/null",
            tofile=f"b/{rel}" if new.is_file() else "/dev/null"))
    text = "".join(line if line.endswith("\n") else line + "\n" for line in chunks)
    return changed, text
