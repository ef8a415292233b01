"""``manifest.json`` of a generation: the one model its writers and every reader share.

Layout::

    {"id": "g<12 hex>", "parents": [...], "created_by": "...",
     "functions": [{"module", "name", "sha256", "parents": [...], "parameters"?: {...}}, ...],
     "active": {"<module>": ["<name>", ...]}}

Invariants: a sealed manifest's ``id`` is :func:`generation_id` of its ``functions`` and ``active``
(the content hash, so equal content means equal id); a manifest is written with the fields it was
given, in this order, and nothing else (:meth:`GenerationManifest.write`). Readers tolerate unknown
keys (kept in ``model_extra``, so a gate can see an editor adding one).
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from modularrsi.util.errors import UserError
from modularrsi.util.files import write_text
from modularrsi.util.jsontypes import Options

FILE = "manifest.json"


class FunctionEntry(BaseModel):
    """One function file of a generation: where it is, its content hash and its declared lineage."""

    model_config = ConfigDict(extra="allow")

    module: str
    name: str
    sha256: str = Field(description="sha256 of modules/<module>/<name>.py.")
    parents: list[str] = Field(default_factory=list, description="'<module>/<name>' keys it grew from.")
    parameters: Options = Field(default_factory=dict, description="Overrides of its PARAMETERS.")

    @property
    def key(self) -> str:
        return f"{self.module}/{self.name}"


class GenerationManifest(BaseModel):
    """The manifest of one generation directory."""

    model_config = ConfigDict(extra="allow")

    id: str = Field(default="", description="Content hash of functions and active (see generation_id).")
    parents: list[str] = Field(default_factory=list, description="Ids of the generations it was made from.")
    created_by: str = Field(default="", description="What made it (editor, integration, merge, ...).")
    functions: list[FunctionEntry] = Field(default_factory=list)
    active: dict[str, list[str]] = Field(default_factory=dict, description="Default active names per module.")

    @classmethod
    def sealed(cls, functions: list[FunctionEntry], active: dict[str, list[str]], parents: list[str],
               created_by: str) -> GenerationManifest:
        """A manifest whose id is the content hash of ``functions`` and ``active``."""
        return cls(id=generation_id(functions, active), parents=parents, created_by=created_by,
                   functions=functions, active=active)

    @classmethod
    def read(cls, generation_dir: Path) -> GenerationManifest:
        """The manifest of ``generation_dir``; ValueError naming the file and the problem."""
        path = generation_dir / FILE
        try:
            return cls.model_validate_json(path.read_bytes())
        except OSError as exc:
            raise UserError(f"{path}: cannot be read ({exc.strerror or exc})") from None
        except ValidationError as exc:
            error = exc.errors()[0]
            if error["type"] == "json_invalid":
                raise UserError(f"{path}: not valid JSON ({error['msg']})") from None
            where = ".".join(map(str, error["loc"]))
            raise UserError(f"{path}: {where}: {error['msg']}; fix the field or write the generation anew "
                            "(library.write_generation)") from None

    @classmethod
    def read_or_none(cls, generation_dir: Path) -> GenerationManifest | None:
        try:
            return cls.read(generation_dir)
        except ValueError:
            return None

    def write(self, generation_dir: Path) -> None:
        """Atomically (a reader sees the old manifest or the new one, never half of it)."""
        write_text(generation_dir / FILE, json.dumps(self.model_dump(mode="json", exclude_unset=True), indent=2) + "\n")

    def entries(self) -> dict[str, FunctionEntry]:
        return {entry.key: entry for entry in self.functions}

    def seal_id(self) -> str:
        return generation_id(self.functions, self.active)


def generation_id(functions: list[FunctionEntry], active: dict[str, list[str]]) -> str:
    """The content hash of a generation: its functions' keys and hashes, and its active set."""
    digest = hashlib.sha256()
    for entry in sorted(functions, key=lambda f: (f.module, f.name)):
        digest.update(f"{entry.key}:{entry.sha256}\n".encode())
    digest.update(json.dumps(active, sort_keys=True).encode())
    return "g" + digest.hexdigest()[:12]


def write_files(generation_dir: Path, sources: dict[str, str],
                lineage: dict[str, list[str]] | None = None) -> list[FunctionEntry]:
    """Write ``{"<module>/<name>": source}`` as function files; their manifest entries, sorted by key."""
    entries = []
    for key, source in sorted(sources.items()):
        module, name = key.split("/")
        file = generation_dir / "modules" / module / f"{name}.py"
        file.parent.mkdir(parents=True, exist_ok=True)
        file.write_text(source)
        entries.append(FunctionEntry(module=module, name=name, sha256=hashlib.sha256(source.encode()).hexdigest(),
                                     parents=(lineage or {}).get(key, [])))
    return entries


def manifest_id(generation_dir: Path) -> str:
    """The ``id`` recorded in a generation's manifest ('' when missing or unreadable)."""
    manifest = GenerationManifest.read_or_none(generation_dir)
    return manifest.id if manifest else ""
