"""Screening an evolution pool against benchmark instances by the similarity of their instructions.

A pool task whose most similar benchmark instance scores at least the threshold is an *overlap*: evolving a
harness on it could leak the benchmark into the harness. Screening is a report, not a failure; with a manifest,
overlapping tasks get an ``Exclusion(source="overlap")`` and screened tasks that no longer overlap lose theirs
(one screening gives the verdict for every task it screens: pass every benchmark to screen against in one call).

Invariants: every input problem is a one-line ``ValueError`` naming the file (and the line of a JSONL); scores
are cosines rounded to 4 decimals; neighbours are sorted by score descending, then id, so a report is
deterministic for a deterministic backend.
"""

from __future__ import annotations

import datetime as dt
import json
import tomllib
from pathlib import Path

import numpy as np
from pydantic import BaseModel, Field

from modularrsi.tasks.embeddings import Embedder
from modularrsi.tasks.manifest import Exclusion, PoolManifest, entry_for, load_manifest, save_manifest
from modularrsi.tasks.model import discover
from modularrsi.util.errors import UserError
from modularrsi.util.jsontypes import Options


class Instance(BaseModel):
    """A text to compare: a benchmark instance (``source`` = its file or task directory) or a pool task."""

    id: str
    instruction: str
    source: str
    metadata: Options = Field(default_factory=dict)


class Neighbour(BaseModel):
    id: str
    score: float


class TaskScreening(BaseModel):
    """One pool task: its nearest benchmark instances (best first) and the verdict."""

    task: str
    path: str
    neighbours: list[Neighbour]
    overlap: bool

    @property
    def best(self) -> Neighbour:
        return self.neighbours[0]


class OverlapReport(BaseModel):
    """What ``overlap.json`` holds: how the screening was done and every task's neighbours."""

    backend: str
    embedder: str
    threshold: float
    top: int
    pool: list[str]
    against: list[str]
    pool_size: int
    spec_size: int
    created_at: str
    overlapping: list[str]
    tasks: list[TaskScreening]


# -- reading inputs ------------------------------------------------------------------------------------------


def _instruction(task_dir: Path) -> str:
    path = task_dir / "instruction.md"
    try:
        text = path.read_text()
    except (OSError, UnicodeDecodeError) as exc:
        raise UserError(f"{path}: cannot read the task's instruction ({type(exc).__name__})") from None
    if not text.strip():
        raise UserError(f"{path}: empty instruction")
    return text


def _metadata(task_dir: Path) -> Options:
    path = task_dir / "task.toml"
    if not path.is_file():
        return {}
    try:
        return dict(tomllib.loads(path.read_text()).get("metadata", {}))
    except tomllib.TOMLDecodeError as exc:
        raise UserError(f"{path}: not valid TOML ({exc})") from None


def load_tasks(paths: list[Path]) -> list[Instance]:
    """The Harbor tasks under ``paths`` (tasks or directories of tasks), each with its ``instruction.md``."""
    return [Instance(id=d.name, instruction=_instruction(d), source=str(d), metadata=_metadata(d))
            for d in discover(paths)]


def load_jsonl(path: Path) -> list[Instance]:
    """``{"id", "instruction"}`` objects, one per line (blank lines skipped); ids must be unique."""
    try:
        lines = path.read_text().splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise UserError(f"{path}: cannot read ({type(exc).__name__})") from None
    items: list[Instance] = []
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except ValueError as exc:
            raise UserError(f"{path}:{number}: not valid JSON ({exc})") from None
        if not (isinstance(record, dict) and isinstance(record.get("id"), str | int)
                and isinstance(record.get("instruction"), str) and record["instruction"].strip()):
            raise UserError(f"{path}:{number}: needs an \"id\" and a non-empty string \"instruction\"")
        items.append(Instance(id=str(record["id"]), instruction=record["instruction"], source=f"{path}:{number}"))
    return items


def load_spec(paths: list[Path]) -> list[Instance]:
    """Benchmark instances from JSONL files and/or directories of Harbor tasks; ids unique across all."""
    items: list[Instance] = []
    for path in paths:
        if path.is_file():
            items.extend(load_jsonl(path))
        elif path.is_dir():
            items.extend(load_tasks([path]))
        else:
            raise UserError(f"{path}: no such benchmark file or task directory")
    seen: dict[str, str] = {}
    for item in items:
        if item.id in seen:
            raise UserError(f"{item.source}: benchmark id '{item.id}' appears twice (first at {seen[item.id]})")
        seen[item.id] = item.source
    if not items:
        raise UserError(f"no benchmark instances in {', '.join(map(str, paths))}")
    return items


def load_pool(paths: list[Path]) -> list[Instance]:
    """The pool's tasks; an empty pool is an error."""
    try:
        tasks = load_tasks(paths)
    except FileNotFoundError as exc:
        raise UserError(str(exc)) from None
    if not tasks:
        raise UserError(f"no tasks found under {', '.join(map(str, paths))}")
    return tasks


# -- screening -----------------------------------------------------------------------------------------------


def nearest(scores: np.ndarray, ids: list[str], top: int) -> list[Neighbour]:
    """The ``top`` highest-scoring ids of one row of scores, best first (ties by id)."""
    order = sorted(range(len(ids)), key=lambda j: (-float(scores[j]), ids[j]))[:top]
    return [Neighbour(id=ids[j], score=round(float(scores[j]), 4)) for j in order]


def screen(pool: list[Instance], spec: list[Instance], embedder: Embedder, threshold: float,
           top: int = 3) -> list[TaskScreening]:
    """Each pool task's ``top`` nearest benchmark instances; an overlap when the best scores >= ``threshold``."""
    if top < 1:
        raise UserError(f"--top must be at least 1, got {top}")
    if not -1.0 <= threshold <= 1.0:
        raise UserError(f"--threshold is a cosine similarity, from -1 to 1; got {threshold}")
    scores = embedder.similarity([t.instruction for t in pool], [s.instruction for s in spec])
    ids = [s.id for s in spec]
    results = []
    for i, task in enumerate(pool):
        neighbours = nearest(scores[i], ids, top)
        results.append(TaskScreening(task=task.id, path=task.source, neighbours=neighbours,
                                     overlap=neighbours[0].score >= threshold))
    return results


def build_report(results: list[TaskScreening], *, backend: str, embedder: Embedder, threshold: float, top: int,
                 pool: list[Path], against: list[Path], spec_size: int) -> OverlapReport:
    """The report, tasks sorted by best score descending (then name)."""
    ordered = sorted(results, key=lambda r: (-r.best.score, r.task))
    return OverlapReport(backend=backend, embedder=embedder.name, threshold=threshold, top=top,
                         pool=[str(p) for p in pool], against=[str(p) for p in against], pool_size=len(results),
                         spec_size=spec_size, created_at=dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
                         overlapping=[r.task for r in ordered if r.overlap], tasks=ordered)


# -- the manifest --------------------------------------------------------------------------------------------


def exclusion_for(result: TaskScreening, report: OverlapReport) -> Exclusion:
    best = result.best
    reason = (f"instruction is {best.score:.2f}-similar to benchmark instance '{best.id}' "
              f"({report.embedder}, threshold {report.threshold:g})")
    return Exclusion(task=result.task, reason=reason, source="overlap", score=best.score, neighbour=best.id)


def apply_to_manifest(manifest: PoolManifest, report: OverlapReport, pool: list[Instance]) -> tuple[int, int]:
    """Record the screening in ``manifest``; returns (overlap exclusions now present, exclusions lifted).

    Screened tasks missing from ``manifest.tasks`` get an entry; each screened entry gets an ``overlap`` field
    (best neighbour, score, backend, threshold, verdict). Tasks not screened are left as they were.
    """
    by_name = {t.id: t for t in pool}
    screened = {r.task for r in report.tasks}
    before = {e.task for e in manifest.exclusions if e.source == "overlap"}
    manifest.exclusions = [e for e in manifest.exclusions if not (e.source == "overlap" and e.task in screened)]
    for result in report.tasks:
        if result.task not in manifest.tasks:
            task = by_name[result.task]
            manifest.tasks[result.task] = entry_for(Path(task.source), task.metadata)
        entry = manifest.tasks[result.task]
        entry.overlap = {"neighbour": result.best.id, "score": result.best.score,  # an extra key (allowed)
                         "overlap": result.overlap, "backend": report.embedder, "threshold": report.threshold}
        if result.overlap:
            manifest.exclude(exclusion_for(result, report))
    if not manifest.pool:
        manifest.pool = list(report.pool)
    lifted = len((before & screened) - set(report.overlapping))
    return len(report.overlapping), lifted


def update_manifest(path: Path, report: OverlapReport, pool: list[Instance]) -> tuple[int, int, str]:
    """Load (or start) the manifest at ``path``, apply the screening, save atomically; returns counts and hash."""
    manifest = load_manifest(path)
    excluded, lifted = apply_to_manifest(manifest, report, pool)
    return excluded, lifted, save_manifest(path, manifest)


# -- calibration on labelled pairs ---------------------------------------------------------------------------


class LabelledPair(BaseModel):
    a: str
    b: str
    duplicate: bool
    kind: str = ""


def load_pairs(path: Path) -> list[LabelledPair]:
    """A JSONL of ``{"a", "b", "duplicate", "kind"}``; a bad line is a one-line error naming it."""
    pairs = []
    for number, line in enumerate(path.read_text().splitlines(), start=1):
        if line.strip():
            try:
                pairs.append(LabelledPair.model_validate_json(line))
            except ValueError as exc:
                raise UserError(f"{path}:{number}: not a labelled pair ({' '.join(str(exc).split())[:200]})") from None
    return pairs


def pair_scores(embedder: Embedder, pairs: list[LabelledPair]) -> np.ndarray:
    """The cosine of each pair, all texts embedded in one call (so lexical IDF is fitted on the whole set)."""
    rows = embedder.embed([p.a for p in pairs] + [p.b for p in pairs])
    return np.einsum("ij,ij->i", rows[: len(pairs)], rows[len(pairs):])


def precision_recall(scores: np.ndarray, labels: list[bool], threshold: float) -> tuple[float, float]:
    """Precision and recall of "score >= threshold means duplicate" (1.0 when there is nothing to count)."""
    predicted = np.asarray(scores) >= threshold
    truth = np.asarray(labels, dtype=bool)
    hits = int((predicted & truth).sum())
    return (hits / int(predicted.sum()) if predicted.any() else 1.0,
            hits / int(truth.sum()) if truth.any() else 1.0)
