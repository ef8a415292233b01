"""A generation of your own: a copy to edit (:func:`new_generation`), then checked and sealed
(:func:`check_generation`), so that ``run``, ``eval`` and ``evolve`` accept it.

A generation loads only when its manifest lists every function file with the file's sha256 and its id
is the content hash (:mod:`modularrsi.harness.library`). Someone who edits a copy by hand changes both,
so :func:`check_generation` does what the evolution does with a candidate before sealing it — the
static checks, file by file — and only when *every* check passes writes the manifest's hashes and id
for the files present. A file that fails is reported and nothing is sealed: the manifest stays as it
was, and the generation still refuses to load.

The checks, one line per problem (``file: what is wrong and what to do``):

- layout: only ``manifest.json``, the sidecar files the caller names and ``modules/<module>/<name>.py``
  of the five modules; no symlinks (as the static gate's scope stage);
- each function file: :func:`~modularrsi.harness.checks.check_source` (syntax and the allowlist), the
  caller's extra source checks (the static gate's banned constructs), the module contract
  (:func:`~modularrsi.harness.library.check_contract`), and the contract's signatures (:data:`SIGNATURES`:
  the kernel calls each callable with these positional arguments);
- each file's top level, run in the confined function runtime (the static gate's import stage);
- the manifest: every active name has a file, each core slot exactly one active core function, no
  name twice, no module that does not exist, no parameter overrides (they are not part of the id and
  copies drop them: set ``PARAMETERS`` in the file instead).
"""

from __future__ import annotations

import ast
import hashlib
import os
import shutil
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from modularrsi.harness.checks import GenerationError, check_source, declarations
from modularrsi.harness.library import Generation, check_contract, copy_generation, load_generation
from modularrsi.harness.manifest import FILE as MANIFEST
from modularrsi.harness.manifest import FunctionEntry, GenerationManifest, generation_id
from modularrsi.harness.protocols import CONTRACT_TABLE, CONTRACTS, CORE_SLOTS, MODULES

#: The positional arguments the kernel passes to each contract callable (``ctx`` last; see protocols.py).
SIGNATURES: dict[str, tuple[str, ...]] = {c.name: c.params for c in CONTRACT_TABLE}
#: A check over a parsed function file: ``(line, problem)`` pairs (e.g. the static gate's banned constructs).
SourceCheck = Callable[[ast.Module], list[tuple[int, str]]]
LAYOUT = f"a generation holds only {MANIFEST} and modules/<module>/<name>.py files"


def new_generation(target: Path, source: Path, sidecars: Collection[str] = ()) -> Generation:
    """A sealed copy of the generation at ``source`` in ``target`` (absent or an empty directory), to edit;
    its manifest names ``source`` as its parent. Files named in ``sidecars`` beside the manifest come along."""
    if target.is_symlink() or target.is_file() or (target.is_dir() and any(target.iterdir())):
        raise GenerationError(f"{target}: exists and is not an empty directory; give a new directory "
                              "(generation new never writes over anything)")
    origin = load_generation(source)
    if target.is_dir():
        target.rmdir()
    generation = copy_generation(source, target, created_by=f"generation new: a copy of {origin.id} to edit",
                                 parents=[origin.id])
    for name in sidecars:
        if (source / name).is_file():
            shutil.copyfile(source / name, target / name)
    return generation


@dataclass
class CheckResult:
    """What :func:`check_generation` found: problems, or the sealed generation and what sealing changed."""

    path: Path
    problems: list[str] = field(default_factory=list)
    generation: Generation | None = None
    was: str = ""
    changes: list[str] = field(default_factory=list)

    def summary(self) -> str:
        """One line: the id (and what sealing changed), then the active functions of each module."""
        gen = self.generation
        assert gen is not None, "summary() of a failed check"
        active = gen.default_active()
        listed = " | ".join(f"{m}: {', '.join(names) or '-'}" for m, names in active.items())
        sealed = f"sealed as {gen.id} (was {self.was or 'unsealed'}; {', '.join(self.changes)})" if self.changes \
            else f"{gen.id} (seal up to date)"
        return (f"{self.path}: ok, {sealed}; {len(gen.functions)} functions, "
                f"{sum(map(len, active.values()))} active — {listed}")


def check_generation(path: Path, source_checks: Sequence[SourceCheck] = (),
                     sidecars: Collection[str] = ()) -> CheckResult:
    """Check the generation directory ``path``; if nothing is wrong, seal its manifest for the files present
    (written only when it changes) and load it. See the module docstring for the checks."""
    manifest, problem = _read_manifest(path)
    if manifest is None:
        return CheckResult(path, [problem])
    problems = layout_problems(path, sidecars)
    files = _function_files(path)
    roles: dict[str, str] = {}
    for file in files:
        role, found = check_function_file(file, source_checks)
        problems += found
        if role is not None:
            roles[_key(file)] = role
    problems += import_problems([f for f in files if _key(f) in roles])
    problems += manifest_problems(path, manifest, roles, {_key(f) for f in files})
    if problems:
        return CheckResult(path, problems, was=manifest.id)
    return _seal(path, manifest, {_key(f): _text_hash(f) for f in files})


def _read_manifest(path: Path) -> tuple[GenerationManifest | None, str]:
    where = path / MANIFEST
    if not path.is_dir():
        return None, f"{path}: not a directory; make a generation with `modularrsi generation new {path}`"
    if where.is_symlink() or not where.is_file():
        return None, (f"{where}: missing (not a generation directory); make one with "
                      f"`modularrsi generation new {path}` and edit that copy")
    try:
        return GenerationManifest.read(path), ""
    except ValueError as exc:
        return None, str(exc)


def _text_hash(file: Path) -> str:
    """sha256 of the file as the loader hashes it: its text, read with universal newlines (CRLF → LF)."""
    return hashlib.sha256(file.read_text().encode()).hexdigest()


def _key(file: Path) -> str:
    return f"{file.parent.name}/{file.stem}"


def _function_files(path: Path) -> list[Path]:
    """``modules/<module>/*.py`` of the five modules, regular files only (symlinks are layout problems)."""
    modules = path / "modules"
    if modules.is_symlink():
        return []
    dirs = [modules / m for m in MODULES if not (modules / m).is_symlink()]
    return sorted(f for d in dirs for f in d.glob("*.py") if f.is_file() and not f.is_symlink())


def layout_problems(path: Path, sidecars: Collection[str] = ()) -> list[str]:
    """A line for every symlink, ``__pycache__`` and file that is not part of a generation."""
    problems = []
    for root, dirs, files in os.walk(path):
        here = Path(root)
        dirs.sort()
        for name in sorted(dirs) + sorted(files):
            item = here / name
            if item.is_symlink():
                problems.append(f"{item}: a symlink; a generation holds plain files only (replace it with a copy "
                                "of what it points to)")
            elif name == "__pycache__":
                problems.append(f"{item}: compiled files are not part of a generation; delete the directory")
            elif item.is_file():
                problem = _placement_problem(item.relative_to(path), sidecars)
                problems += [f"{item}: {problem}"] if problem else []
        dirs[:] = [d for d in dirs if d != "__pycache__" and not (here / d).is_symlink()]
    return problems


def _placement_problem(rel: Path, sidecars: Collection[str]) -> str | None:
    parts = rel.parts
    if len(parts) == 1 and (parts[0] == MANIFEST or parts[0] in sidecars):
        return None
    if len(parts) == 3 and parts[0] == "modules" and rel.suffix == ".py":
        if parts[1] in MODULES:
            return None
        return f"modules/{parts[1]}/ is not a module directory (one of {', '.join(MODULES)}); move the file into one"
    if len(parts) == 2 and parts[0] in MODULES and rel.suffix == ".py":
        return f"function files live under modules/: move it to modules/{rel}"
    return f"not part of the generation ({LAYOUT}); move or delete it"


def check_function_file(file: Path, source_checks: Sequence[SourceCheck] = ()) -> tuple[str | None, list[str]]:
    """The role of a function file that passes every static check, or None and one line per problem."""
    try:
        tree = check_source(file, file.read_text())
    except GenerationError as exc:
        return None, [str(exc)]
    except (OSError, UnicodeDecodeError) as exc:
        return None, [f"{file}: cannot be read as UTF-8 text ({exc}); save it as UTF-8"]
    problems = [f"{file}:{line}: {problem}" for check in source_checks for line, problem in check(tree)]
    try:
        module, role, _, _ = check_contract(file, file.parent.name, declarations(file, tree))
    except GenerationError as exc:
        return None, [*problems, str(exc)]
    problems += signature_problems(file, tree, module, role)
    return (None, problems) if problems else (role, [])


def signature_problems(file: Path, tree: ast.Module, module: str, role: str) -> list[str]:
    """A line for each contract callable the kernel could not call with its positional arguments."""
    defs = {node.name: node for node in tree.body if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)}
    problems = []
    for name in CONTRACTS[(module, role)]:
        node, wanted = defs[name], SIGNATURES[name]
        a = node.args
        positional = len(a.posonlyargs) + len(a.args)
        takes = positional >= len(wanted) or a.vararg is not None
        kw_required = any(default is None for default in a.kw_defaults)
        if not takes or positional - len(a.defaults) > len(wanted) or kw_required:
            given = ", ".join(arg.arg for arg in [*a.posonlyargs, *a.args])
            problems.append(f"{file}:{node.lineno}: {name}({given}) does not match the {module} contract "
                            f"{name}({', '.join(wanted)}); the kernel calls it with {len(wanted)} positional "
                            "argument(s)")
    return problems


def import_problems(files: list[Path]) -> list[str]:
    """Each file's top level run in the confined function runtime (never in this process)."""
    from modularrsi.harness.runtime import RuntimeUnavailable, declare

    problems = []
    for file in files:
        try:
            report = declare(file.read_text())
        except RuntimeUnavailable as exc:
            return [*problems, f"{file}: the import check could not run ({exc}); it needs the function runtime "
                               "(bubblewrap, started as root)"]
        if "error" in report:
            problems.append(f"{file}: fails on import: {report['error']} (its top level runs when the generation "
                            "loads; fix it)")
    return problems


def manifest_problems(path: Path, manifest: GenerationManifest, roles: dict[str, str], present: set[str]) -> list[str]:
    """The manifest's active set against the files (``roles``: files that passed; ``present``: all files)."""
    where = path / MANIFEST
    problems = [f"{where}: active lists '{m}', which is not a module (one of {', '.join(MODULES)}); fix the key"
                for m in manifest.active if m not in MODULES]
    for module in MODULES:
        problems += _slot_problems(where, module, manifest.active.get(module, []), roles, present)
    problems += [f"{where}: {e.key} sets parameters, which copies drop and the id does not cover; set PARAMETERS "
                 f"in modules/{e.key}.py instead" for e in manifest.functions if e.parameters and e.key in present]
    return problems


def _slot_problems(where: Path, module: str, names: list[str], roles: dict[str, str], present: set[str]) -> list[str]:
    problems = [f"{where}: active.{module} lists '{n}' {names.count(n)} times; list it once"
                for n in sorted(set(names)) if names.count(n) > 1]
    missing = [n for n in dict.fromkeys(names) if f"{module}/{n}" not in present]
    problems += [f"{where}: active {module} function '{n}' has no file {where.parent / 'modules' / module / n}.py; "
                 f"write the file or remove '{n}' from active.{module}" for n in missing]
    if module not in CORE_SLOTS or any(f"{module}/{n}" not in roles for n in names):
        return problems  # a missing or failing file is reported already; its role is unknown
    cores = [n for n in dict.fromkeys(names) if roles[f"{module}/{n}"] == "core"]
    if len(cores) != 1:
        shown = f" ({', '.join(cores)})" if cores else ""
        problems.append(f"{where}: {module} needs exactly one active core function, has {len(cores)}{shown}; "
                        f"keep one core in active.{module}")
    return problems


def _seal(path: Path, manifest: GenerationManifest, hashes: dict[str, str]) -> CheckResult:
    """Write the manifest with ``hashes`` for the files present (only if that changes it), then load it."""
    old = manifest.entries()
    functions = [old[key].model_copy(update={"sha256": sha}) if key in old else
                 FunctionEntry(module=key.split("/")[0], name=key.split("/")[1], sha256=sha, parents=[])
                 for key, sha in sorted(hashes.items())]
    sealed = manifest.model_copy(update={"functions": functions, "id": generation_id(functions, manifest.active)})
    changes = [f"added {k}" for k in hashes if k not in old]
    changes += [f"re-hashed {k}" for k in hashes if k in old and old[k].sha256 != hashes[k]]
    changes += [f"dropped {k} (no file)" for k in old if k not in hashes]
    if not changes and sealed.id != manifest.id:
        changes.append("id re-computed")
    previous = (path / MANIFEST).read_bytes()
    if sealed.model_dump(exclude_unset=True) != manifest.model_dump(exclude_unset=True):
        sealed.write(path)
    try:
        generation = load_generation(path)
    except GenerationError as exc:  # a case the checks above missed: never leave it sealed
        (path / MANIFEST).write_bytes(previous)
        return CheckResult(path, [str(exc)], was=manifest.id)
    return CheckResult(path, generation=generation, was=manifest.id, changes=changes)
