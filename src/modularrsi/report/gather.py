"""What a report shows, gathered from a run directory into plain data (:class:`Report`).

Kinds (:func:`detect_kind`): ``evolve`` — made by ``modularrsi evolve`` (``lanes/`` or a ``lock.json``
naming lanes); ``eval`` — made by ``modularrsi eval`` (``eval.json``); ``run`` — made by ``modularrsi
run`` (``results.json`` or a run ``config.yaml``). Invariants:

- only reads files: nothing in the run directory is created or changed (the SQLite trajectory memory
  is not opened: attempts and rewards come from the sample runs' own files);
- a run in progress or an older layout gives empty parts, never an error: a missing or unreadable file
  is an absent part;
- ``simulated`` is true when any part of the run says its agent model was ``sim`` (``results.json``,
  ``eval.json``, an epoch's ``sample.json``, or the agent role in ``lock.json``).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ValidationError

from modularrsi.evolve.aggregate import Aggregation
from modularrsi.evolve.buckets import EpochBuckets
from modularrsi.evolve.evaluate import EvalResult
from modularrsi.evolve.findings import Finding
from modularrsi.evolve.history import Change
from modularrsi.rollouts.results import RunResults

Kind = Literal["evolve", "run", "eval"]
GATES = ("static", "review", "execution")
SIM_LABEL = "sim: these numbers show the machinery works, not what a real model would gain"


class UnreadableRun(ValueError):
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


def read_dict(path: Path) -> dict[str, Any]:
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
class EpochView:
    """One epoch of one lane: its sample's Acc, routing buckets, findings, directions and outcome."""

    lane: str
    epoch: int
    acc: float | None = None
    simulated: bool = False
    tasks: int = 0
    promoted: list[str] = field(default_factory=list)
    promoted_as: str | None = None
    generation: str | None = None
    buckets: EpochBuckets | None = None
    findings: list[Finding] = field(default_factory=list)
    aggregation: Aggregation | None = None
    done: bool = False


@dataclass
class LaneView:
    name: str
    modules: list[str]
    epochs: list[EpochView]
    epochs_done: int = 0
    generation: str | None = None


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
    state: dict[str, Any] = field(default_factory=dict)
    lock: dict[str, Any] = field(default_factory=dict)
    results: RunResults | None = None
    eval: EvalResult | None = None
    eval_sides: dict[str, RunResults] = field(default_factory=dict)
    lanes: list[LaneView] = field(default_factory=list)
    changes: list[Change] = field(default_factory=list)
    budget: dict[str, Any] = field(default_factory=dict)
    planned_epochs: int | None = None
    lineage: Any = None  # modularrsi.report.lineage.Lineage
    case: Any = None  # modularrsi.report.cases.Case

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


def _epoch_number(path: Path) -> int:
    match = re.fullmatch(r"epoch_(\d+)", path.name)
    return int(match.group(1)) if match else -1


def gather_epoch(lane: str, edir: Path) -> EpochView:
    sample = read_dict(edir / "sample.json")
    outcome = read_dict(edir / "outcome.json")
    return EpochView(lane=lane, epoch=_epoch_number(edir), acc=sample.get("acc", outcome.get("acc")),
                     simulated=bool(sample.get("simulated")), tasks=len(sample.get("tasks", [])),
                     promoted=list(outcome.get("promoted", [])), promoted_as=outcome.get("promoted_as"),
                     generation=outcome.get("generation") or sample.get("generation"),
                     buckets=read_model(edir / "buckets.json", EpochBuckets),
                     findings=read_lines(edir / "findings.jsonl", Finding),
                     aggregation=read_model(edir / "directions.json", Aggregation), done=bool(outcome))


def gather_lanes(run_dir: Path, lock: dict[str, Any]) -> list[LaneView]:
    declared = [lane for lane in lock.get("lanes", []) if isinstance(lane, dict) and "name" in lane]
    names = [lane["name"] for lane in declared]
    root = run_dir / "lanes"
    if root.is_dir():
        names += sorted(p.name for p in root.iterdir() if p.is_dir() and p.name not in names)
    modules = {lane["name"]: lane.get("modules", []) for lane in declared}
    lanes = []
    for name in names:
        ldir = root / name
        state = read_dict(ldir / "state.json")
        edirs = sorted((p for p in ldir.glob("epoch_*") if _epoch_number(p) >= 0), key=_epoch_number)
        lanes.append(LaneView(name=name, modules=modules.get(name) or state.get("modules", [name]),
                              epochs=[gather_epoch(name, e) for e in edirs], epochs_done=state.get("epochs_done", 0),
                              generation=state.get("generation")))
    return lanes


def _eval_sides(eval_dir: Path) -> dict[str, RunResults]:
    sides = {}
    for side in ("baseline", "candidate"):
        results = read_model(eval_dir / side / "results.json", RunResults)
        if results is not None:
            sides[side] = results
    return sides


def _planned_epochs(run_dir: Path, state: dict[str, Any]) -> int | None:
    if isinstance(state.get("epochs"), int):
        return state["epochs"]
    try:
        import yaml

        config = yaml.safe_load((run_dir / "config.yaml").read_text()) or {}
    except (OSError, ValueError, yaml.YAMLError):
        return None
    return config.get("epochs") if isinstance(config, dict) else None


def gather(run_dir: Path, *, with_case: bool = True, with_lineage: bool = True) -> Report:
    """The :class:`Report` of ``run_dir`` (see the module docstring); ValueError if it is no run directory."""
    run_dir = Path(run_dir)
    kind = detect_kind(run_dir)
    if kind is None:
        raise ValueError(f"{run_dir}: not a run directory (no lanes/, eval.json, results.json or config.yaml)")
    state = read_dict(run_dir / "state.json")
    lock = read_dict(run_dir / "lock.json")
    report = Report(kind=kind, run_dir=run_dir, run_id=run_dir.resolve().name, simulated=False, state=state,
                    lock=lock, budget=read_dict(run_dir / "budget.json"))
    if kind == "run":
        report.results = read_model(run_dir / "results.json", RunResults)
    elif kind == "eval":
        report.eval = read_model(run_dir / "eval.json", EvalResult)
        report.eval_sides = _eval_sides(run_dir)
    else:
        report.planned_epochs = _planned_epochs(run_dir, state)
        report.lanes = gather_lanes(run_dir, lock)
        report.changes = read_lines(run_dir / "history.jsonl", Change)
        report.eval = read_model(run_dir / "eval" / "eval.json", EvalResult)
        report.eval_sides = _eval_sides(run_dir / "eval")
        if with_lineage:
            from modularrsi.report.lineage import gather_lineage

            report.lineage = gather_lineage(run_dir, report.changes)
    report.simulated = _simulated(report)
    if with_case:
        from modularrsi.report.cases import pick_case

        report.case = pick_case(report)
    return report


def _simulated(report: Report) -> bool:
    agent = str((report.lock.get("roles") or {}).get("agent", report.lock.get("model", "")))
    return (agent.startswith("sim") or bool(report.results and report.results.simulated)
            or bool(report.eval and report.eval.simulated)
            or any(r.simulated for r in report.eval_sides.values())
            or any(e.simulated for lane in report.lanes for e in lane.epochs))
