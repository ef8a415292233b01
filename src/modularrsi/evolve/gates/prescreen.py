"""The review gate's deterministic pre-screen: rules that reject task-specific or outcome-driven changes.

What is screened: the lines the diff *adds*, the changed file names and the editor's description (the
direction summary is evidence, not change, and is only redacted before a reviewer sees it). A rule
that fires rejects.

- **Task names** — any evolution-pool task name, or a supporting task's name, case-insensitive, also
  with ``-`` written as ``_`` or a space (names shorter than ``min_task_name_chars`` are ignored).
- **Task-specific paths** — an absolute path that (a) starts with a task workspace root (``/app``,
  ``/workspace``, ``/testbed``, ``/srv``, ``/data``, ``/home``, ``/root``, ``/mnt``, ``/opt``) and goes
  deeper than that root — ``/app`` alone is generic, ``/app/x`` names something a task put there —
  or (b) ends in a file name with a data-file extension (``.csv``, ``.json``, ``.db``, ``.log``, …)
  anywhere but under a scratch root (``/tmp``, ``/dev``, ``/proc``, ``/sys``), where a generic helper
  may keep its own files. ``/tmp/out.log``, ``/dev/null``, ``/usr/bin/python3`` pass.
- **Magic constants** — a numeric literal compared in a condition (``==``, ``<``, ``in (…)``, …) that
  is not *round*: round means at most ``max_significant_digits`` significant digits (``4000``,
  ``0.25``), a power of two, or a generic constant (exit codes 124/126/127/128/130/137/139/143/255).
  ``x == 4217`` is magic. Only constants new to the changed file count (the parent's were accepted).
- **Outcome talk** — rewards, pass rates, verifier or test material (``/tests``, ``solve.sh`` …): a
  harness change is justified by behaviour, never by scores.
- **Description** — empty, shorter than ``min_description_words`` words, or without a causal marker
  (``because``, ``so that``, ``prevents``, ``leads to`` …): the change must say what it causes.
"""

from __future__ import annotations

import ast
import math
import re
from decimal import Decimal

from pydantic import BaseModel, ConfigDict, Field

from modularrsi.evolve.gates import GateVerdict
from modularrsi.evolve.proposal import Proposal

GATE = "review"
OUTCOME = re.compile(
    r"reward|pass(?:ing)?[ _-]?rate|success[ _-]?rate|pass\s*[@^]\s*\d|\bacc(?:uracy)?\s*[:=]?\s*\d"
    r"|\b\d+\s*(?:/|of|out of)\s*\d+\s*(?:attempts?|runs?|trials?|rollouts?)?\s*(?:pass|fail|succe)"
    r"|\b(?:passed|failed)\s+\d+\s*(?:/|of|out of)\s*\d+|\d+(?:\.\d+)?\s*%\s*(?:pass|success|fail)"
    r"|\b(?:all|both|none of the|\d+)\s+(?:\d+\s+)?(?:attempts?|runs?|trials?|rollouts?)\s+(?:passed|failed|succeeded)"
    r"|/tests\b|/solution\b|solve\.sh|test\.sh|test_outputs|/logs/verifier|\bverifier\s+(?:output|result|log)",
    re.IGNORECASE)
TEST_CONTENT = re.compile(r"\bassert\b|pytest|expected output|\bexpected\s*[:=]", re.IGNORECASE)
PATH = re.compile(r"(?<![\w.~])/(?:[\w.\-]+/)*[\w.\-]+")
CAUSAL = ("because", "so that", "so the", "so it", "since", "therefore", "thus", "hence", "causes", "caused",
          "leads to", "led to", "prevents", "results in", "in order to", "otherwise", "which means",
          "as a result", "due to", "instead of")


class PrescreenRules(BaseModel):
    """Thresholds and word lists of the pre-screen (see the module docstring for each rule)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    workspace_roots: tuple[str, ...] = ("app", "workspace", "testbed", "srv", "data", "home", "root", "mnt", "opt")
    scratch_roots: tuple[str, ...] = ("tmp", "dev", "proc", "sys")
    data_extensions: tuple[str, ...] = ("csv", "tsv", "json", "jsonl", "ndjson", "db", "sqlite", "sqlite3",
                                        "parquet", "xlsx", "xls", "log", "txt", "yaml", "yml", "toml", "ini",
                                        "conf", "cfg", "xml", "html", "md", "dat", "pcap")
    generic_constants: tuple[float, ...] = (124, 126, 127, 128, 130, 137, 139, 143, 255)
    max_significant_digits: int = Field(default=2, ge=1)
    min_task_name_chars: int = Field(default=6, ge=1)
    min_description_words: int = Field(default=8, ge=1)
    causal_markers: tuple[str, ...] = CAUSAL


def prescreen(proposal: Proposal, task_names: list[str], rules: PrescreenRules) -> GateVerdict | None:
    """A failing review verdict when a rule fires; None when the proposal may go to a reviewer."""
    text = "\n".join([*proposal.added_lines(), *proposal.changed_files, proposal.description])
    checks = (("task_name", task_name_hit(text, task_names, rules)),
              ("path", task_specific_path(text, rules)),
              ("outcome", outcome_hit(text)),
              ("magic_constant", magic_constant(proposal, rules)),
              ("description", description_problem(proposal.description, rules)))
    for rule, problem in checks:
        if problem:
            return GateVerdict.fail(GATE, problem, stage="prescreen", rule=rule)
    return None


def task_name_hit(text: str, task_names: list[str], rules: PrescreenRules) -> str | None:
    lowered = text.lower()
    for name in sorted(set(task_names)):
        if len(name) < rules.min_task_name_chars:
            continue
        for variant in {name.lower(), name.lower().replace("-", "_"), name.lower().replace("-", " ")}:
            if variant in lowered:
                return f"names the task '{name}' (a task-specific patch)"
    return None


def task_specific_path(text: str, rules: PrescreenRules) -> str | None:
    text = re.sub(r"\\[ntr0]", " ", text)  # "\n/app/x" inside a literal is still a path
    for match in PATH.finditer(text):
        path = match.group(0)
        parts = path.strip("/").split("/")
        if parts[0] in rules.workspace_roots and len(parts) > 1:
            return f"task-specific path '{path}' (deeper than /{parts[0]})"
        extension = parts[-1].rsplit(".", 1)[1].lower() if "." in parts[-1] else ""
        if parts[0] not in rules.scratch_roots and extension in rules.data_extensions:
            return f"task-specific path '{path}' (names a data file)"
    return None


def outcome_hit(text: str) -> str | None:
    match = OUTCOME.search(text)
    return f"mentions outcome or grading material ('{match.group(0)}'); changes are justified by behaviour" \
        if match else None


def description_problem(description: str, rules: PrescreenRules) -> str | None:
    words = description.split()
    if len(words) < rules.min_description_words:
        return f"description too short ({len(words)} words; at least {rules.min_description_words})"
    lowered = " ".join(words).lower()
    if not any(re.search(rf"\b{re.escape(m)}\b", lowered) for m in rules.causal_markers):
        return "description states no causal chain (no 'because', 'so that', 'prevents', 'leads to', …)"
    return None


def is_round(value: float, rules: PrescreenRules) -> bool:
    if value == 0 or abs(value) in rules.generic_constants or not math.isfinite(value):
        return True
    if float(value).is_integer() and abs(value) >= 1 and math.log2(abs(value)).is_integer():
        return True
    digits = Decimal(repr(abs(value))).normalize().as_tuple().digits
    return len(digits) <= rules.max_significant_digits


def _number(node: ast.AST) -> float | None:
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub | ast.UAdd):
        inner = _number(node.operand)
        return None if inner is None else (-inner if isinstance(node.op, ast.USub) else inner)
    if isinstance(node, ast.Constant) and isinstance(node.value, int | float) and not isinstance(node.value, bool):
        return node.value
    return None


def compared_numbers(source: str) -> set[tuple[str, float]]:
    """``(operator, value)`` for every numeric literal compared in ``source`` (empty if it does not parse)."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return set()
    found = set()
    for node in ast.walk(tree):
        if not isinstance(node, ast.Compare):
            continue
        operands = [node.left, *node.comparators]
        for i, op in enumerate(node.ops):
            for side in operands[i:i + 2]:
                elements = side.elts if isinstance(side, ast.Tuple | ast.List | ast.Set) else [side]
                found.update((type(op).__name__, v) for v in map(_number, elements) if v is not None)
    return found


def magic_constant(proposal: Proposal, rules: PrescreenRules) -> str | None:
    for rel in proposal.changed_files:
        if not rel.endswith(".py"):
            continue
        new, old = proposal.staging_dir / rel, proposal.parent_dir / rel
        if not new.is_file():
            continue
        before = compared_numbers(old.read_text()) if old.is_file() else set()
        for op, value in sorted(compared_numbers(new.read_text()) - before):
            if not is_round(value, rules):
                return f"{rel}: magic constant {value:g} compared ({op}); tuned for one task?"
    return None
