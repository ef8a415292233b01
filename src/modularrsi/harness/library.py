"""Generations: immutable directories of module function files plus a manifest.

Layout::

    gen_dir/manifest.json                 {"id", "parents", "created_by", "functions": [...], "active": {...}}
    gen_dir/modules/<module>/<name>.py    one function per file (see protocols.py for the contract)

A generation's id is the content hash of its function files and active set, so two directories with
the same content have the same id and a changed byte gives a new one. Loading validates every
file before anything runs — it parses, imports only what it may, declares MODULE/ROLE/DESCRIPTION/
PARAMETERS consistently with its directory, and defines its contract's callables — and refuses the
generation with :class:`GenerationError` naming the file and the problem.
"""

from __future__ import annotations

import ast
import functools
import hashlib
import importlib.util
import inspect
import json
import shutil
import sys
from dataclasses import dataclass, field
from pathlib import Path
from types import CodeType, ModuleType, SimpleNamespace
from typing import Any

from modularrsi.harness.protocols import CONTRACTS, CORE_SLOTS, MODULES

#: Third-party imports the kernel allows functions to use (prefix match on dotted names).
ALLOWED_IMPORTS = ("modularrsi.harness.protocols", "modularrsi.harness.resources",
                   "harbor.agents.terminus_2.terminus_json_plain_parser",
                   "harbor.agents.terminus_2.terminus_xml_plain_parser")
#: Standard-library modules that reach outside the sandbox API (processes, files, network, loaders).
BANNED_IMPORTS = frozenset({
    "os", "sys", "subprocess", "socket", "ssl", "urllib", "http", "ftplib", "smtplib", "telnetlib",
    "ctypes", "multiprocessing", "shutil", "pathlib", "importlib", "builtins", "signal", "threading",
    "pty", "fcntl", "resource", "glob", "tempfile", "io", "pickle", "marshal", "runpy", "code",
    "webbrowser", "xmlrpc", "socketserver", "asyncio.subprocess", "sqlite3", "zipimport", "gc",
})
BANNED_CALLS = frozenset({"open", "exec", "eval", "compile", "__import__", "breakpoint", "globals", "vars"})


class GenerationError(ValueError):
    """A generation that cannot be loaded: names the file and the problem."""


@dataclass
class Function:
    """One loaded function file."""

    name: str
    module: str
    role: str
    description: str
    parameters: dict[str, Any]
    path: Path
    sha256: str
    compiled: CodeType | None
    parents: list[str] = field(default_factory=list)
    source: str = ""  # what the function runtime executes (the checked text, not re-read from disk)

    @functools.cached_property
    def code(self) -> ModuleType:
        """This file run as a module *in this process* — for tests and tools only, never for an
        episode: the kernel runs functions in the confined runtime (:mod:`modularrsi.harness.runtime`),
        and loading a generation runs each file there, too. A fresh module per Function object."""
        assert self.compiled is not None, f"{self.path}: no compiled code"
        return _import_file(self.path, f"_mrsi_fn_{id(self):x}.{self.module}.{self.name}", self.compiled)

    def call(self, attr: str) -> Any:
        """The callable ``attr`` of :attr:`code` (tests and tools only, see there)."""
        return getattr(self.code, attr)


@dataclass
class Generation:
    """A loaded, validated generation."""

    path: Path
    id: str
    manifest: dict[str, Any]
    functions: dict[str, Function]  # key: "<module>/<name>"

    def default_active(self) -> dict[str, list[str]]:
        return {m: list(self.manifest["active"].get(m, [])) for m in MODULES}

    def in_module(self, module: str) -> list[Function]:
        return [f for f in self.functions.values() if f.module == module]


def file_hash(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def generation_id(functions: list[dict[str, Any]], active: dict[str, list[str]]) -> str:
    digest = hashlib.sha256()
    for entry in sorted(functions, key=lambda f: (f["module"], f["name"])):
        digest.update(f"{entry['module']}/{entry['name']}:{entry['sha256']}\n".encode())
    digest.update(json.dumps(active, sort_keys=True).encode())
    return "g" + digest.hexdigest()[:12]


def _is_allowed(name: str) -> bool:
    if any(name == a or name.startswith(a + ".") for a in ALLOWED_IMPORTS):
        return True
    top = name.split(".")[0]
    if name in BANNED_IMPORTS or top in BANNED_IMPORTS:
        return False
    return top in sys.stdlib_module_names or top == "__future__"


def check_source(path: Path, source: str) -> ast.Module:
    """Parse ``source`` and reject imports and calls a function may not use."""
    try:
        tree = ast.parse(source, filename=str(path))
    except SyntaxError as exc:
        raise GenerationError(f"{path}:{exc.lineno}: syntax error: {exc.msg}") from None
    for node in ast.walk(tree):
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            names = [node.module or ""] if node.level == 0 else ["<relative>"]
        for name in names:
            if not _is_allowed(name):
                raise GenerationError(f"{path}:{node.lineno}: forbidden import '{name}' (functions may import "
                                      "the standard library minus process/file/network modules, and "
                                      f"{', '.join(ALLOWED_IMPORTS)})")
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in BANNED_CALLS:
            raise GenerationError(f"{path}:{node.lineno}: forbidden call '{node.func.id}()'")
        if isinstance(node, ast.Attribute) and node.attr.startswith("__") and node.attr not in (
                "__name__", "__doc__", "__init__", "__class__"):
            raise GenerationError(f"{path}:{node.lineno}: forbidden dunder access '{node.attr}'")
    return tree


@dataclass(frozen=True)
class _Checked:
    """A function file that parsed and passed :func:`check_source`, compiled."""

    sha256: str
    code: CodeType
    source: str = ""


#: Function files already checked and compiled in this process, by (path, content hash): a trial
#: loads its generation afresh, and an evolution runs the same generation hundreds of times.
_CHECKED: dict[tuple[str, str], _Checked] = {}


def _checked(path: Path) -> _Checked:
    """Read ``path``; check and compile it unless this exact content was checked here before."""
    source = path.read_text()
    sha = hashlib.sha256(source.encode()).hexdigest()
    key = (str(path), sha)
    hit = _CHECKED.get(key)
    if hit is None:
        hit = _Checked(sha, compile(check_source(path, source), str(path), "exec"), source)
        _CHECKED[key] = hit
    return hit


def _import_file(path: Path, unique: str, code: CodeType) -> ModuleType:
    """A fresh module object running ``code``: functions never share module state across loads."""
    spec = importlib.util.spec_from_file_location(unique, path)
    assert spec
    module = importlib.util.module_from_spec(spec)
    try:
        exec(code, module.__dict__)  # noqa: S102 - the file passed check_source above
    except Exception as exc:  # noqa: BLE001 - any import-time failure refuses the generation
        raise GenerationError(f"{path}: fails on import: {type(exc).__name__}: {exc}") from None
    return module


def check_contract(path: Path, module_dir: str, code: Any) -> tuple[str, str, dict[str, Any]]:
    """MODULE/ROLE/DESCRIPTION/PARAMETERS declared and consistent; contract callables present."""
    for attr in ("MODULE", "ROLE", "DESCRIPTION", "PARAMETERS"):
        if not hasattr(code, attr):
            raise GenerationError(f"{path}: missing top-level {attr}")
    module, role = code.MODULE, code.ROLE
    if module != module_dir:
        raise GenerationError(f"{path}: MODULE is '{module}' but the file is under modules/{module_dir}/")
    if (module, role) not in CONTRACTS:
        valid = sorted(r for m, r in CONTRACTS if m == module)
        raise GenerationError(f"{path}: ROLE '{role}' is not valid for {module} (valid: {', '.join(valid)})")
    if not isinstance(code.DESCRIPTION, str) or len(code.DESCRIPTION.strip()) < 20:
        raise GenerationError(f"{path}: DESCRIPTION must say what the function does and when it helps")
    if not isinstance(code.PARAMETERS, dict):
        raise GenerationError(f"{path}: PARAMETERS must be a dict")
    for name, is_async in CONTRACTS[(module, role)].items():
        target = getattr(code, name, None)
        if not callable(target):
            raise GenerationError(f"{path}: missing contract method '{name}' for a {role} {module} function")
        if inspect.iscoroutinefunction(target) != is_async:
            kind = "async def" if is_async else "def"
            raise GenerationError(f"{path}: contract method '{name}' must be '{kind}'")
    return module, role, dict(code.PARAMETERS)


#: What each checked file declares when run in the confined runtime, by content hash.
_DECLARED: dict[str, dict[str, Any]] = {}


def _declared(path: Path, checked: _Checked) -> SimpleNamespace:
    """The file's top-level names as :func:`check_contract` reads them, from running it in the
    confined runtime (never in this process): values as plain data, callables as stubs of their kind."""
    report = _DECLARED.get(checked.sha256)
    if report is None:
        from modularrsi.harness.runtime import declare

        report = _DECLARED[checked.sha256] = declare(checked.source)
    if "error" in report:
        raise GenerationError(f"{path}: fails on import: {report['error']}")
    declared = SimpleNamespace(**report["values"])
    for name, kind in report["callables"].items():
        setattr(declared, name, {"sync": _sync_stub, "async": _async_stub}.get(kind, "not callable"))
    return declared


def _sync_stub(*args: Any) -> None: ...


async def _async_stub(*args: Any) -> None: ...


def load_function(path: Path, unique_prefix: str) -> Function:
    checked = _checked(path)
    module_dir = path.parent.name
    if module_dir not in MODULES:
        raise GenerationError(f"{path}: modules/{module_dir}/ is not one of {', '.join(MODULES)}")
    declared = _declared(path, checked)
    module, role, params = check_contract(path, module_dir, declared)
    return Function(path.stem, module, role, declared.DESCRIPTION.strip(), params, path, checked.sha256,
                    checked.code, source=checked.source)


def load_generation(path: Path) -> Generation:
    """Load and validate every function of the generation at ``path``."""
    manifest_path = path / "manifest.json"
    if not manifest_path.is_file():
        raise GenerationError(f"{manifest_path}: missing (not a generation directory)")
    try:
        manifest = json.loads(manifest_path.read_text())
    except json.JSONDecodeError as exc:
        raise GenerationError(f"{manifest_path}: not valid JSON ({exc})") from None
    functions: dict[str, Function] = {}
    prefix = f"_mrsi_gen_{hashlib.sha256(str(path.resolve()).encode()).hexdigest()[:10]}"
    for file in sorted((path / "modules").glob("*/*.py")):
        fn = load_function(file, prefix)
        functions[f"{fn.module}/{fn.name}"] = fn
    entries = {f"{e['module']}/{e['name']}": e for e in manifest.get("functions", [])}
    for key, fn in functions.items():
        entry = entries.get(key)
        if entry is None:
            raise GenerationError(f"{fn.path}: not listed in {manifest_path}")
        if entry.get("sha256") != fn.sha256:
            raise GenerationError(f"{fn.path}: content hash differs from {manifest_path} (generations are "
                                  "immutable: write a new generation instead of editing one)")
        fn.parents = list(entry.get("parents", []))
        fn.parameters = {**fn.parameters, **entry.get("parameters", {})}
    for key in entries:
        if key not in functions:
            raise GenerationError(f"{manifest_path}: lists {key}, but modules/{key}.py does not exist")
    check_active(manifest_path, manifest.get("active", {}), functions)
    return Generation(path, manifest.get("id", ""), manifest, functions)


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
    tmp = target.with_name(target.name + ".tmp")
    if tmp.exists():
        shutil.rmtree(tmp)
    entries = []
    for key, source in sorted(sources.items()):
        module, name = key.split("/")
        file = tmp / "modules" / module / f"{name}.py"
        file.parent.mkdir(parents=True, exist_ok=True)
        file.write_text(source)
        entries.append({"module": module, "name": name, "sha256": hashlib.sha256(source.encode()).hexdigest(),
                        "parents": (lineage or {}).get(key, [])})
    manifest = {"id": generation_id(entries, active), "parents": parents, "created_by": created_by,
                "functions": entries, "active": active}
    (tmp / "manifest.json").write_text(json.dumps(manifest, indent=2) + "\n")
    try:
        generation = load_generation(tmp)
    except GenerationError:
        shutil.rmtree(tmp)  # a generation that does not load is never left half-made
        raise
    tmp.rename(target)
    generation.path = target
    return generation


def read_sources(generation: Generation) -> dict[str, str]:
    return {key: fn.path.read_text() for key, fn in generation.functions.items()}
