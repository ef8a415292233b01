"""The static gate: program checks that need no model and no task, cheapest first.

Stages (the first failing one decides; ``details["stage"]`` names it):

1. ``consistency`` — the proposal says what the directories say: the parent's manifest id is
   ``parent_id``, ``changed_files`` and ``diff`` equal :func:`generation_diff` of parent → staging,
   something changed at all, and the staging manifest is sealed (its id is the content hash of its
   entries; the import stage checks the entries against the files).
2. ``parse`` — every changed function file parses and passes ``harness.checks.check_source`` (the
   allowlist: imports, builtins named, private attributes, format-string lookups, resources).
3. ``constructs`` — no banned construct (:mod:`.constructs`): file/process/network access through
   attributes, interpreter escapes, string constants naming grading material (``/tests`` …).
4. ``scope`` — only ``modules/<locked>/<name>.py`` files and ``manifest.json`` changed, no symlinks;
   in the manifest only the locked module's ``functions`` entries and ``active`` list changed (plus
   ``id``, ``parents``, ``created_by``), and ``parents`` names the parent.
5. ``import`` — a subprocess loads the staging generation with ``library.load_generation`` (module
   contract, manifest hashes, one core per slot) and runs each file's top level in the confined
   function runtime (``runtime.declare``), never in a host process. The subprocess first imports the harness
   and says READY; ``import_timeout_s`` then bounds the generation's own loading, so a module that
   hangs or crashes at import time fails here instead of in the orchestrator.

Scope is checked before the import although the usual order (parse → import → contract → scope) puts it
after: it is a file comparison, and the import subprocess is the only costly stage. The parent and staging
directories are only read.
"""

from __future__ import annotations

import asyncio
import json
import os
import secrets
import sys
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from modularrsi.evolve.gates import GateVerdict
from modularrsi.evolve.gates.constructs import ConstructRules, construct_problems
from modularrsi.evolve.proposal import Proposal, generation_diff, manifest_id
from modularrsi.harness.library import GenerationError, check_source
from modularrsi.harness.manifest import FILE as MANIFEST_FILE
from modularrsi.harness.manifest import FunctionEntry, GenerationManifest
from modularrsi.util.outbound import OFFLINE_DEFAULTS

GATE = "static"
MANIFEST = MANIFEST_FILE
_SCRIPT = """
import json, sys
from pathlib import Path
from modularrsi.harness.library import GenerationError, load_generation
from modularrsi.harness.runtime import declare
nonce = sys.argv[2]
print("READY " + nonce, flush=True)
try:
    gen = load_generation(Path(sys.argv[1]))
    for fn in gen.functions.values():  # each file's top level runs in the confined runtime, never here
        report = declare(fn.source)
        if "error" in report:
            raise GenerationError(f"{fn.path}: fails on import: {report['error']}")
except GenerationError as exc:
    result = {"ok": False, "reason": str(exc)}
else:
    result = {"ok": True, "id": gen.id, "functions": sorted(gen.functions)}
print("RESULT " + nonce + " " + json.dumps(result), flush=True)
"""


class StaticConfig(BaseModel):
    """Settings of the static gate."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    import_timeout_s: float = Field(default=180.0, gt=0, description="Wall-time limit on loading the generation "
                                    "itself, counted after the subprocess has imported the harness (each file's top "
                                    "level also has a CPU-time limit in the function runtime; 20 s rejected good "
                                    "proposals at a load average of 30).")
    startup_timeout_s: float = Field(default=180.0, gt=0, description="Limit on the subprocess importing the "
                                     "harness before it loads the generation.")
    python: str = Field(default=sys.executable, description="Interpreter for the import subprocess.")
    rules: ConstructRules = Field(default_factory=ConstructRules, description="Banned constructs.")
    locked: bool = Field(default=True, description="Enforce the module lock (False only for the --monolithic "
                         "ablation: any module's function files may change).")


class StaticGate:
    """Parse → constructs → scope → import/contract; see the module docstring for each stage."""

    name = GATE

    def __init__(self, config: StaticConfig | None = None):
        self.config = config or StaticConfig()

    async def check(self, proposal: Proposal) -> GateVerdict:
        scope = scope_problem if self.config.locked else unlocked_scope_problem
        for stage in (consistency_problem, self._source_problem, scope):
            verdict = stage(proposal)
            if verdict is not None:
                return verdict
        return await self._import(proposal)

    def _source_problem(self, proposal: Proposal) -> GateVerdict | None:
        for rel in proposal.changed_files:
            path = proposal.staging_dir / rel
            if not (rel.endswith(".py") and path.is_file()):
                continue
            source = path.read_text()
            try:
                tree = check_source(Path(rel), source)
            except GenerationError as exc:
                stage = "parse" if "syntax error" in str(exc) else "constructs"
                return GateVerdict.fail(GATE, str(exc), stage=stage, file=rel)
            problems = construct_problems(tree, self.config.rules)
            if problems:
                line, problem = problems[0]
                return GateVerdict.fail(GATE, f"{rel}:{line}: {problem}", stage="constructs", file=rel, line=line,
                                    problems=[f"{n}: {p}" for n, p in problems])
        return None

    async def _import(self, proposal: Proposal) -> GateVerdict:
        outcome = await load_in_subprocess(proposal.staging_dir, self.config)
        if isinstance(outcome, str):
            return GateVerdict.fail(GATE, outcome, stage="import")
        if not outcome.get("ok"):
            return GateVerdict.fail(GATE, outcome.get("reason", "generation refused"), stage="import")
        scope = f"confined to {proposal.locked_module}" if self.config.locked else "module lock off"
        return GateVerdict.ok(GATE, f"parses, no banned construct, {scope}, loads as {outcome['id']}",
                         generation_id=outcome["id"], changed_files=proposal.changed_files)


def consistency_problem(proposal: Proposal) -> GateVerdict | None:
    """The proposal's own account of the change must match the directories."""
    def fail(reason: str) -> GateVerdict:
        return GateVerdict.fail(GATE, reason, stage="consistency")

    if not (proposal.staging_dir / MANIFEST).is_file():
        return fail(f"{proposal.staging_dir}: no {MANIFEST} (not a generation directory)")
    if proposal.staging_dir.resolve() == proposal.parent_dir.resolve():
        return fail("staging directory is the parent directory (generations are never edited in place)")
    actual_parent = manifest_id(proposal.parent_dir)
    if actual_parent != proposal.parent_id:
        return fail(f"parent_id {proposal.parent_id} but {proposal.parent_dir} is {actual_parent or 'unreadable'}")
    changed, diff = generation_diff(proposal.parent_dir, proposal.staging_dir)
    if not changed:
        return fail("no change: staging equals the parent")
    if changed != proposal.changed_files:
        return fail(f"changed_files {proposal.changed_files} but the directories differ in {changed}")
    if diff != proposal.diff:
        return fail("diff text does not match the directories (build proposals with Proposal.build)")
    return seal_problem(_read(proposal.staging_dir))


def seal_problem(manifest: GenerationManifest | None) -> GateVerdict | None:
    """The manifest's id must be the content hash of its entries (as ``library.write_generation`` writes)."""
    if manifest is None:
        return GateVerdict.fail(GATE, f"{MANIFEST}: malformed (needs functions with module/name/sha256, and active)",
                                stage="consistency")
    sealed = manifest.seal_id()
    if manifest.id != sealed:
        return GateVerdict.fail(GATE, f"{MANIFEST}: id {manifest.id or None} is not the content hash {sealed} "
                                "(write the staging generation with library.write_generation)", stage="consistency")
    return None


def scope_problem(proposal: Proposal) -> GateVerdict | None:
    """Only the locked module's function files and its part of the manifest may change."""
    locked = proposal.locked_module
    prefix = f"modules/{locked}/"
    for rel in proposal.changed_files:
        if rel == MANIFEST:
            continue
        if not rel.startswith(prefix):
            return GateVerdict.fail(GATE, f"{rel} is outside {prefix} (the change is locked to {locked})",
                                stage="scope", file=rel)
        if rel.count("/") != 2 or not rel.endswith(".py"):
            return GateVerdict.fail(GATE, f"{rel}: only function files {prefix}<name>.py may change", stage="scope",
                                file=rel)
    links = [p for p in proposal.staging_dir.rglob("*") if p.is_symlink()]
    if links:
        return GateVerdict.fail(GATE, f"{links[0]}: symlinks are not allowed in a generation", stage="scope")
    problem = manifest_scope_problem(_read(proposal.parent_dir), _read(proposal.staging_dir), locked,
                                     proposal.parent_id)
    return GateVerdict.fail(GATE, f"{MANIFEST}: {problem}", stage="scope", file=MANIFEST) if problem else None


def unlocked_scope_problem(proposal: Proposal) -> GateVerdict | None:
    """Without the module lock: still only function files and the manifest, and no symlinks."""
    for rel in proposal.changed_files:
        if rel != MANIFEST and not (rel.startswith("modules/") and rel.count("/") == 2 and rel.endswith(".py")):
            return GateVerdict.fail(GATE, f"{rel}: only modules/<module>/<name>.py files may change", stage="scope",
                                file=rel)
    links = [p for p in proposal.staging_dir.rglob("*") if p.is_symlink()]
    if links:
        return GateVerdict.fail(GATE, f"{links[0]}: symlinks are not allowed in a generation", stage="scope")
    return None


def _read(generation_dir: Path) -> GenerationManifest | None:
    return GenerationManifest.read_or_none(generation_dir)


def manifest_scope_problem(parent: GenerationManifest | None, staging: GenerationManifest | None, locked: str,
                           parent_id: str) -> str | None:
    """What in the staging manifest changed outside the locked module, or None."""
    if staging is None:
        return "unreadable or not a valid manifest"
    parent = parent or GenerationManifest()
    extra_before, extra_after = parent.model_extra or {}, staging.model_extra or {}
    moved = sorted(k for k in extra_before.keys() | extra_after.keys() if extra_before.get(k) != extra_after.get(k))
    if moved:
        return f"top-level '{moved[0]}' changed"

    def others(manifest: GenerationManifest) -> dict[str, FunctionEntry]:
        return {key: entry for key, entry in manifest.entries().items() if entry.module != locked}

    before, after = others(parent), others(staging)
    touched = sorted(k for k in before.keys() | after.keys() if before.get(k) != after.get(k))
    if touched:
        return f"function entry {touched[0]} changed, but the change is locked to {locked}"
    for module in sorted(parent.active.keys() | staging.active.keys()):
        if module != locked and parent.active.get(module) != staging.active.get(module):
            return f"active list of {module} changed, but the change is locked to {locked}"
    if parent_id not in staging.parents:
        return f"parents {staging.parents} do not name the parent {parent_id}"
    return None


async def load_in_subprocess(staging_dir: Path, config: StaticConfig) -> dict | str:
    """Load ``staging_dir`` in a fresh interpreter: the loader's JSON result, or a one-line failure."""
    nonce = secrets.token_hex(8)  # generation code cannot read argv (no sys), so it cannot fake a result
    env = {**os.environ, **OFFLINE_DEFAULTS, "PYTHONDONTWRITEBYTECODE": "1"}
    proc = await asyncio.create_subprocess_exec(
        config.python, "-c", _SCRIPT, str(staging_dir.resolve()), nonce, env=env,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT, stdin=asyncio.subprocess.DEVNULL)
    lines: list[str] = []
    try:
        await asyncio.wait_for(_read_until(proc, f"READY {nonce}", lines), config.startup_timeout_s)
        rest, _ = await asyncio.wait_for(proc.communicate(), config.import_timeout_s)
    except TimeoutError:
        proc.kill()
        await proc.wait()
        started = any(line.strip() == f"READY {nonce}" for line in lines)
        limit = config.import_timeout_s if started else config.startup_timeout_s
        return f"loading the generation did not finish within {limit:g} s (hang at import time?)"
    lines.extend(rest.decode(errors="replace").splitlines())
    marker = f"RESULT {nonce} "
    results = [line[len(marker):] for line in lines if line.startswith(marker)]
    if not results:
        tail = " | ".join(line.strip() for line in lines[-3:] if line.strip())
        return f"loading the generation crashed (exit {proc.returncode}): {tail or 'no output'}"
    return json.loads(results[-1])


async def _read_until(proc: asyncio.subprocess.Process, wanted: str, lines: list[str]) -> None:
    assert proc.stdout is not None
    while True:
        raw = await proc.stdout.readline()
        if not raw:
            return
        line = raw.decode(errors="replace").rstrip("\n")
        lines.append(line)
        if line.strip() == wanted:
            return
