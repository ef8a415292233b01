"""Plain views of an evolution run's lanes, as the report shows them (filled by :mod:`.gather`)."""

from __future__ import annotations

from dataclasses import dataclass, field

from modularrsi.evolve.aggregate import Aggregation
from modularrsi.evolve.buckets import EpochBuckets
from modularrsi.evolve.findings import Finding


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
