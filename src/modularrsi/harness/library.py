"""Generations: immutable directories of module function files plus a manifest.

Layout::

    gen_dir/manifest.json                 :class:`~modularrsi.harness.manifest.GenerationManifest`
    gen_dir/modules/<module>/<name>.py    one function per file (see protocols.py for the contract)

A generation's id is the content hash of its function files and active set, so two directories with
the same content have the same id and a changed byte gives a new one. Loading validates every
file before anything runs — it parses, imports only what it may, declares MODULE/ROLE/DESCRIPTION/
PARAMETERS consistently with its directory, and defines its contract's callables — and refuses the
generation with :class:`GenerationError` naming the file and the problem.
"""

from __future__ import annotations

import hashlib
import shutil
from dataclasses import dataclass, field
from pathlib import Path

from modularrsi.harness.checks import Declarations, GenerationError, SourceRefused, check_source, declarations
from modularrsi.harness.manifest import FILE as MANIFEST
from modularrsi.harness.manifest import GenerationManifest, generation_id, write_files
from modularrsi.harness.protocols import CONTRACTS, CORE_SLOTS, MODULES
from modularrsi.util.jsontypes import Options

#: gen_0, the shipped Terminus-2 generation (the harness package's ``baseline/``).
BASELINE = Path(__file__).parent / "baseline"

__all__ = ["BASELINE", "Function", "Generation", "GenerationError", "GenerationManifest", "check_source",
           "copy_generation", "generation_id", "load_generation", "write_generation", "write_unchecked"]


@dataclass
class Function:
    """One checked function file. Loading it executes none of its code: ``source`` is what the
    confined runtime executes (:mod:`modularrsi.harness.probe` calls one function there)."""

    name: str
    module: str
    role: str
    description: str
    parameters: Options
    path: Path
    sha256: str
    source: str  # what the function runtime executes (the checked text, not re-read from disk)
    parents: list[str] = field(default_factory=list)


@dataclass
class Generation:
    """A loaded, validated generation."""

    path: Path
    id: str
    manifest: GenerationManifest
    functions: dict[str, Function]  # key: "<module>/<name>"

    def default_active(self) -> dict[str, list[str]]:
        return {m: list(self.manifest.active.get(m, [])) for m in MODULES}

    def in_module(self, module: str) -> list[Function]:
        return [f for f in self.functions.values() if f.module == module]


@dataclass(frozen=True)
class _Checked:
    """A function file that parsed, passed :func:`check_source` and compiles: its declarations."""

    sha256: str
    source: str
    declared: Declarations


#: Function files already checked in this process, by (path, content hash): a trial
#: loads its generation afresh, and an evolution runs the same generation hundreds of times.
_CHECKED: dict[tuple[str, str], _Checked] = {}


def _checked(path: Path) -> _Checked:
    """Read ``path``; check and compile it unless this exact content was checked here before."""
    source = path.read_text()
    sha = hashlib.sha256(source.encode()).hexdigest()
    key = (str(path), sha)
    hit = _CHECKED.get(key)
    if hit is None:
        tree = check_source(path, source)
        try:
            compile(tree, str(path), "exec")  # what parses may still not compile ('return' outside a function)
        except SyntaxError as exc:
            raise SourceRefused(f"{path}:{exc.lineno}: {exc.msg}") from None
        hit = _Checked(sha, source, declarations(path, tree))
        _CHECKED[key] = hit
    return hit


def check_contract(path: Path, module_dir: str, declared: Declarations) -> tuple[str, str, str, Options]:
    """MODULE/ROLE/DESCRIPTION/PARAMETERS declared and consistent; contract callables defined with the
    right kind (``def`` or ``async def``). Reads the syntax tree's findings; runs nothing."""
    values = declared.values
    for attr in ("MODULE", "ROLE", "DESCRIPTION", "PARAMETERS"):
        if attr not in values:
            raise GenerationError(f"{path}: missing top-level {attr} (a literal assignment)")
    module, role = values["MODULE"], values["ROLE"]
    if module != module_dir:
        raise GenerationError(f"{path}: MODULE is '{module}' but the file is under modules/{module_dir}/")
    if (module, role) not in CONTRACTS:
        valid = sorted(r for m, r in CONTRACTS if m == module)
        raise GenerationError(f"{path}: ROLE '{role}' is not valid for {module} (valid: {', '.join(valid)})")
    description = values["DESCRIPTION"]
    if not isinstance(description, str) or len(description.strip()) < 20:
        raise GenerationError(f"{path}: DESCRIPTION must say what the function does and when it helps")
    if not isinstance(values["PARAMETERS"], dict):
        raise GenerationError(f"{path}: PARAMETERS must be a dict")
    for name, is_async in CONTRACTS[(module, role)].items():
        if name not in declared.callables:
            raise GenerationError(f"{path}: missing contract method '{name}' for a {role} {module} function "
                                  "(a top-level def)")
        if declared.callables[name] != is_async:
            kind = "async def" if is_async else "def"
            raise GenerationError(f"{path}: contract method '{name}' must be '{kind}'")
    return module, role, description.strip(), dict(values["PARAMETERS"])


def load_function(path: Path) -> Function:
    checked = _checked(path)
    module_dir = path.parent.name
    if module_dir not in MODULES:
        raise GenerationError(f"{path}: modules/{module_dir}/ is not one of {', '.join(MODULES)}")
    module, role, description, params = check_contract(path, module_dir, checked.declared)
    return Function(path.stem, module, role, description, params, path, checked.sha256, checked.source)


def load_generation(path: Path) -> Generation:
    """Load and validate every function of the generation at ``path``."""
    manifest_path = path / MANIFEST
    if not manifest_path.is_file():
        raise GenerationError(f"{manifest_path}: missing (not a generation directory)")
    try:
        manifest = GenerationManifest.read(path)
    except ValueError as exc:
        raise GenerationError(str(exc)) from None
    functions: dict[str, Function] = {}
    for file in sorted((path / "modules").glob("*/*.py")):
        fn = load_function(file)
        functions[f"{fn.module}/{fn.name}"] = fn
    entries = manifest.entries()
    for key, fn in functions.items():
        entry = entries.get(key)
        if entry is None:
            raise GenerationError(f"{fn.path}: not listed in {manifest_path}")
        if entry.sha256 != fn.sha256:
            raise GenerationError(f"{fn.path}: content hash differs from {manifest_path} (generations are "
                                  "immutable: write a new generation instead of editing one; for a copy you "
                                  "edit by hand, `modularrsi generation check` re-seals it)")
        fn.parents = list(entry.parents)
        fn.parameters = {**fn.parameters, **entry.parameters}
    for key in entries:
        if key not in functions:
            raise GenerationError(f"{manifest_path}: lists {key}, but modules/{key}.py does not exist")
    check_active(manifest_path, manifest.active, functions)
    return Generation(path, manifest.id, manifest, functions)


def check_active(where: Path, active: dict[str, list[str]], functions: dict[str, Function]) -> None:
    """Each core slot has exactly one active core function; every active name exists."""
    for module in MODULES:
        names = active.get(module, [])
        for name in names:
            if f"{module}/{name}" not in functions:
                raise GenerationError(f"{where}: active {module} function '{name}' does not exist")
        cores = [n for n in names if functions[f"{module}/{n}"].role == "core"]
        if module in CORE_SLOTS and len(cores) != 1:
            raise GenerationError(f"{where}: {module} needs exactly one active core function, has {len(cores)}")


def write_generation(target: Path, sources: dict[str, str], active: dict[str, list[str]],
                     parents: list[str], created_by: str,
                     lineage: dict[str, list[str]] | None = None) -> Generation:
    """Write a new immutable generation from ``{"<module>/<name>": source}``; atomic (temp + rename)."""
    if target.exists():
        raise GenerationError(f"{target}: exists already (generations are never overwritten)")
    tmp = _write_tmp(target, sources, active, parents, created_by, lineage)
    try:
        generation = load_generation(tmp)
    except GenerationError:
        shutil.rmtree(tmp)  # a generation that does not load is never left half-made
        raise
    tmp.rename(target)
    generation.path = target
    return generation


def write_unchecked(target: Path, sources: dict[str, str], active: dict[str, list[str]], parents: list[str],
                    created_by: str, lineage: dict[str, list[str]] | None = None) -> GenerationManifest:
    """Like :func:`write_generation` but without loading (for patches meant to fail the gates)."""
    tmp = _write_tmp(target, sources, active, parents, created_by, lineage)
    tmp.rename(target)
    return GenerationManifest.read(target)


def _write_tmp(target: Path, sources: dict[str, str], active: dict[str, list[str]], parents: list[str],
               created_by: str, lineage: dict[str, list[str]] | None) -> Path:
    """The files and sealed manifest of a generation, in ``<target>.tmp`` (emptied first)."""
    tmp = target.with_name(target.name + ".tmp")
    if tmp.exists():
        shutil.rmtree(tmp)
    GenerationManifest.sealed(write_files(tmp, sources, lineage), active, parents, created_by).write(tmp)
    return tmp


def read_sources(generation: Generation) -> dict[str, str]:
    return {key: fn.path.read_text() for key, fn in generation.functions.items()}


def parts(generation: Generation) -> tuple[dict[str, str], dict[str, list[str]], dict[str, list[str]]]:
    """What :func:`write_generation` takes to write ``generation`` again: sources, active set, lineage."""
    return read_sources(generation), generation.default_active(), {k: list(f.parents)
                                                                   for k, f in generation.functions.items()}


def copy_generation(source_dir: Path, target: Path, created_by: str | None = None,
                    parents: list[str] | None = None) -> Generation:
    """A sealed copy of a generation (same id unless ``created_by``/``parents`` change the manifest)."""
    gen = load_generation(source_dir)
    sources, active, lineage = parts(gen)
    return write_generation(target, sources, active, parents if parents is not None else gen.manifest.parents,
                            created_by or gen.manifest.created_by, lineage)
