"""Plain views of an evolution run's lanes, as the report shows them (filled by :mod:`.gather`)."""

from __future__ import annotations

from dataclasses import dataclass, field

from modularrsi.evolve.aggregate import Aggregation
from modularrsi.evolve.buckets import EpochBuckets
from modularrsi.evolve.findings import Direction, Finding
from modularrsi.evolve.history import Change


@dataclass
class EpochView:
    """One epoch of one lane: its sample's Acc, routing buckets, findings, directions and outcome."""

    lane: str
    epoch: int
    acc: float | None = None
    simulated: bool = False
    tasks: int = 0
    sample_run: str | None = None  # the sample's run directory, relative to the run directory
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
class HistoryEntry:
    """One lane and epoch of the Evolution History: the findings the lane's analysis stored in the
    trajectory memory (and those other lanes referred to its module), its directions, and the decided
    change of each of its proposals (from ``history.jsonl``)."""

    lane: str
    epoch: int
    findings: list[Finding] = field(default_factory=list)
    referred: list[Finding] = field(default_factory=list)
    directions: list[Direction] = field(default_factory=list)
    verdicts: list[Change] = field(default_factory=list)
