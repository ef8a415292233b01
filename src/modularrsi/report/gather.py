"""What a report shows, gathered from a run directory into plain data (:class:`Report`).

Kinds (:func:`detect_kind`): ``evolve`` — made by ``modularrsi evolve`` (``lanes/`` or a ``lock.json``
naming lanes); ``eval`` — made by ``modularrsi eval`` (``eval.json``); ``run`` — made by ``modularrsi
run`` (``results.json`` or a run ``config.yaml``). Invariants:

- only reads files: nothing in the run directory is created or changed (the SQLite trajectory memory
  is opened read-only, for the Evolution History only: attempts and rewards come from the sample runs'
  own files);
- a run in progress or an older layout gives empty parts, never an error: a missing or unreadable file
  is an absent part;
- ``simulated`` is true when any part of the run says its agent model was ``sim`` (``results.json``,
  ``eval.json``, an epoch's ``sample.json``, or the agent role in ``lock.json``).
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from pydantic import ValidationError

from modularrsi.evolve.aggregate import Aggregation
from modularrsi.evolve.buckets import EpochBuckets
from modularrsi.evolve.config import EvolveConfig
from modularrsi.evolve.evaluate import EvalResult
from modularrsi.evolve.findings import Direction, Finding
from modularrsi.evolve.history import Change
from modularrsi.evolve.layout import EpochLayout, RunLayout
from modularrsi.evolve.memory import TrajectoryMemory
from modularrsi.evolve.runfiles import EpochOutcome, EpochSample, EvolveLock, LaneState
from modularrsi.report.cases import Case, pick_case
from modularrsi.report.files import UnreadableRun, read_dict, read_lines, read_model
from modularrsi.report.lineage import Lineage, gather_lineage
from modularrsi.report.views import EpochView, HistoryEntry, LaneView
from modularrsi.rollouts.results import RunResults
from modularrsi.rollouts.state import BudgetFile, RunLock, RunState
from modularrsi.util.errors import UserError

Kind = Literal["evolve", "run", "eval"]
GATES = ("static", "review", "execution")
SIM_LABEL = "sim: these numbers show the machinery works, not what a real model would gain"


def detect_kind(run_dir: Path) -> Kind | None:
    lock = read_dict(run_dir / "lock.json")
    if (run_dir / "lanes").is_dir() or "lanes" in lock:
        return "evolve"
    if (run_dir / "eval.json").is_file() or ((run_dir / "baseline").is_dir() and (run_dir / "candidate").is_dir()):
        return "eval"
    if (run_dir / "results.json").is_file() or (run_dir / "config.yaml").is_file():
        return "run"
    return None


@dataclass
class FunnelStage:
    name: str
    count: int


@dataclass
class Rejection:
    change: str
    stage: str
    reason: str


@dataclass
class Report:
    """Everything a report shows about one run directory."""

    kind: Kind
    run_dir: Path
    run_id: str
    simulated: bool
    state: RunState = field(default_factory=RunState)
    lock: EvolveLock | RunLock | None = None
    results: RunResults | None = None
    eval: EvalResult | None = None
    eval_sides: dict[str, RunResults] = field(default_factory=dict)
    lanes: list[LaneView] = field(default_factory=list)
    changes: list[Change] = field(default_factory=list)
    budget: BudgetFile | None = None
    config: EvolveConfig | None = None  # an evolution's config.yaml, read through its model
    planned_epochs: int | None = None
    history: list[HistoryEntry] = field(default_factory=list)
    lineage: Lineage | None = None
    case: Case | None = None

    @property
    def promoted(self) -> list[Change]:
        return [c for c in self.changes if c.outcome == "promoted"]

    def funnel(self) -> tuple[list[FunnelStage], list[Rejection]]:
        """Changes proposed, then passing each gate in order, then promoted; and why each one stopped."""
        stages = [FunnelStage("proposed", len(self.changes))]
        for gate in GATES:
            stages.append(FunnelStage(gate, sum(any(g.gate == gate and g.passed for g in c.gates)
                                                for c in self.changes)))
        stages.append(FunnelStage("promoted", len(self.promoted)))
        rejections = [Rejection(c.id, "editor" if c.outcome == "editor_failed" else c.rejected_by or c.outcome,
                                c.reason) for c in self.changes if c.outcome != "promoted"]
        return stages, rejections

    def best_acc(self) -> float | None:
        """The highest Acc any generation reached in this run's measurements (samples, eval, results)."""
        values = [e.acc for lane in self.lanes for e in lane.epochs if e.acc is not None]
        if self.eval:
            values += [self.eval.baseline.acc, self.eval.candidate.acc]
        if self.results:
            values.append(self.results.overall.acc)
        return max(values) if values else None


def gather_epoch(lane: str, layout: EpochLayout) -> EpochView:
    sample = read_model(layout.sample, EpochSample)
    outcome = read_model(layout.outcome, EpochOutcome)
    acc = sample.acc if sample and sample.acc is not None else outcome.acc if outcome else None
    return EpochView(lane=lane, epoch=layout.number, acc=acc, simulated=bool(sample and sample.simulated),
                     tasks=len(sample.tasks) if sample else 0, sample_run=sample.run if sample else None,
                     promoted=list(outcome.promoted) if outcome else [],
                     promoted_as=outcome.promoted_as if outcome else None,
                     generation=(outcome.generation if outcome else None) or (sample.generation if sample else None),
                     buckets=read_model(layout.buckets, EpochBuckets),
                     findings=read_lines(layout.findings, Finding),
                     aggregation=read_model(layout.directions, Aggregation), done=outcome is not None)


def gather_lanes(layout: RunLayout, lock: EvolveLock | None) -> list[LaneView]:
    declared = list(lock.lanes) if lock else []
    names = [lane.name for lane in declared]
    if layout.lanes.is_dir():
        names += sorted(p.name for p in layout.lanes.iterdir() if p.is_dir() and p.name not in names)
    modules = {lane.name: lane.modules for lane in declared}
    lanes = []
    for name in names:
        lane = layout.lane(name)
        state = read_model(lane.state, LaneState)
        lanes.append(LaneView(name=name, modules=modules.get(name) or (state.modules if state else [name]),
                              epochs=[gather_epoch(name, e) for e in lane.epochs()],
                              epochs_done=state.epochs_done if state else 0,
                              generation=state.generation if state else None))
    return lanes


def gather_history(path: Path, changes: list[Change]) -> list[HistoryEntry]:
    """Per lane and epoch: the findings and directions the trajectory memory at ``path`` keeps and the
    decided ``changes`` of ``history.jsonl`` ([] without a memory)."""
    if not path.is_file():
        return []
    entries: dict[tuple[str, int], HistoryEntry] = {}

    def entry(lane: str, epoch: int) -> HistoryEntry:
        return entries.setdefault((lane, epoch), HistoryEntry(lane, epoch))

    try:
        with TrajectoryMemory.read_only(path) as memory:
            for item in memory.items("findings"):
                finding = Finding.model_validate(item.payload)
                referred = (item.key or "").startswith("referred-by-")
                (entry(item.lane, item.epoch).referred if referred else entry(item.lane, item.epoch).findings
                 ).append(finding)
            for item in memory.items("directions"):
                entry(item.lane, item.epoch).directions.append(Direction.model_validate(item.payload))
        for change in changes:  # a lane's proposals, beside the analysis that led to them
            if (change.lane, change.epoch) in entries:
                entries[(change.lane, change.epoch)].verdicts.append(change)
    except sqlite3.OperationalError:
        return []  # busy or not yet readable (a run in progress): an absent part
    except (sqlite3.DatabaseError, ValidationError) as exc:
        raise UnreadableRun(f"{path}: {type(exc).__name__}: {exc}") from None
    return [entries[k] for k in sorted(entries)]


def _eval_sides(eval_dir: Path) -> dict[str, RunResults]:
    sides = {}
    for side in ("baseline", "candidate"):
        results = read_model(eval_dir / side / "results.json", RunResults)
        if results is not None:
            sides[side] = results
    return sides


def read_config(run_dir: Path) -> EvolveConfig | None:
    """An evolution's ``config.yaml`` through :class:`EvolveConfig`; None when it is missing or is not one
    this version reads (the report then leaves out what only it says)."""
    try:
        return EvolveConfig.load(run_dir / "config.yaml")
    except UserError:
        return None


def gather(run_dir: Path, *, with_case: bool = True, with_lineage: bool = True) -> Report:
    """The :class:`Report` of ``run_dir`` (see the module docstring); ValueError if it is no run directory."""
    run_dir = Path(run_dir)
    kind = detect_kind(run_dir)
    if kind is None:
        raise UserError(f"{run_dir}: not a run directory (no lanes/, eval.json, results.json or config.yaml)")
    layout = RunLayout(run_dir)
    report = Report(kind=kind, run_dir=run_dir, run_id=run_dir.resolve().name, simulated=False,
                    state=read_model(layout.state, RunState) or RunState(),
                    budget=read_model(layout.budget, BudgetFile))
    if kind == "run":
        report.lock = read_model(layout.lock, RunLock)
        report.results = read_model(run_dir / "results.json", RunResults)
    elif kind == "eval":
        report.eval = read_model(run_dir / "eval.json", EvalResult)
        report.eval_sides = _eval_sides(run_dir)
    else:
        report.lock = read_model(layout.lock, EvolveLock)
        report.config = read_config(run_dir)
        report.planned_epochs = report.state.epochs if report.state.epochs is not None else \
            report.config.epochs if report.config else None
        report.lanes = gather_lanes(layout, report.lock)
        report.changes = read_lines(layout.history, Change)
        report.history = gather_history(layout.memory, report.changes)
        report.eval = read_model(layout.eval_result, EvalResult)
        report.eval_sides = _eval_sides(layout.eval)
        if with_lineage:
            report.lineage = gather_lineage(run_dir, report.changes)
    report.simulated = _simulated(report)
    if with_case:
        report.case = pick_case(report.kind, run_dir, report.lanes)
    return report


def _simulated(report: Report) -> bool:
    return (bool(report.lock and report.lock.simulated) or bool(report.results and report.results.simulated)
            or bool(report.eval and report.eval.simulated)
            or any(r.simulated for r in report.eval_sides.values())
            or any(e.simulated for lane in report.lanes for e in lane.epochs))
