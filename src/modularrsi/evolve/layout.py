"""``RunLayout``: every path of an evolution's run directory, named once.

::

    runs/<id>/config.yaml lock.json state.json history.jsonl memory.sqlite budget.json cache.sqlite
              start/                         the starting generation (sealed copy)
              samples/<gen>-s<seed>/         rollouts of one generation at one seed (shared by lanes)
              lanes/<lane>/state.json gen_<n>/
              lanes/<lane>/epoch_<e>/sample.json buckets.json findings.jsonl directions.json outcome.json
              lanes/<lane>/epoch_<e>/gates/<d>-<try>/staging/ execution/
              integration/result.json combined/ resolve/<i>-<module>/{staging/, execution/}
              merge.json merged/ frozen/ frozen.json eval/

Nothing here touches the disk; the stages decide what to write (see :mod:`modularrsi.evolve.runfiles` for
what each JSON file holds).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class ProposalLayout:
    """One attempt at one change: ``gates/<d>-<try>/`` in an epoch, ``resolve/<i>-<module>/`` in integration."""

    root: Path

    @property
    def staging(self) -> Path:
        return self.root / "staging"

    @property
    def execution(self) -> Path:
        return self.root / "execution"


@dataclass(frozen=True)
class EpochLayout:
    root: Path

    @property
    def number(self) -> int:
        return int(self.root.name.split("_")[1])

    @property
    def sample(self) -> Path:
        return self.root / "sample.json"

    @property
    def buckets(self) -> Path:
        return self.root / "buckets.json"

    @property
    def findings(self) -> Path:
        return self.root / "findings.jsonl"

    @property
    def directions(self) -> Path:
        return self.root / "directions.json"

    @property
    def outcome(self) -> Path:
        return self.root / "outcome.json"

    @property
    def gates(self) -> Path:
        return self.root / "gates"

    def proposal(self, direction: int, attempt: int) -> ProposalLayout:
        return ProposalLayout(self.gates / f"{direction}-{attempt}")


def epoch_number(path: Path) -> int:
    """The number of an ``epoch_<e>`` directory; -1 for anything else."""
    match = re.fullmatch(r"epoch_(\d+)", path.name)
    return int(match.group(1)) if match else -1


@dataclass(frozen=True)
class LaneLayout:
    root: Path

    @property
    def state(self) -> Path:
        return self.root / "state.json"

    def generation(self, name: str) -> Path:
        return self.root / name

    def epoch(self, epoch: int) -> EpochLayout:
        return EpochLayout(self.root / f"epoch_{epoch}")

    def epochs(self) -> list[EpochLayout]:
        """The epoch directories present, in order."""
        found = [p for p in self.root.glob("epoch_*") if epoch_number(p) >= 0]
        return [EpochLayout(p) for p in sorted(found, key=epoch_number)]


@dataclass(frozen=True)
class IntegrationLayout:
    root: Path

    @property
    def result(self) -> Path:
        return self.root / "result.json"

    @property
    def combined(self) -> Path:
        return self.root / "combined"

    def revert(self, index: int, module: str) -> ProposalLayout:
        return ProposalLayout(self.root / "resolve" / f"{index}-{module}")


@dataclass(frozen=True)
class RunLayout:
    """The run directory ``root`` of one evolution."""

    root: Path

    @property
    def config(self) -> Path:
        return self.root / "config.yaml"

    @property
    def lock(self) -> Path:
        return self.root / "lock.json"

    @property
    def state(self) -> Path:
        return self.root / "state.json"

    @property
    def history(self) -> Path:
        return self.root / "history.jsonl"

    @property
    def memory(self) -> Path:
        return self.root / "memory.sqlite"

    @property
    def budget(self) -> Path:
        return self.root / "budget.json"

    @property
    def cache(self) -> Path:
        return self.root / "cache.sqlite"

    @property
    def start(self) -> Path:
        return self.root / "start"

    def sample(self, key: str) -> Path:
        return self.root / "samples" / key

    @property
    def lanes(self) -> Path:
        return self.root / "lanes"

    def lane(self, name: str) -> LaneLayout:
        return LaneLayout(self.lanes / name)

    @property
    def integration(self) -> IntegrationLayout:
        return IntegrationLayout(self.root / "integration")

    @property
    def merge(self) -> Path:
        return self.root / "merge.json"

    @property
    def merged(self) -> Path:
        return self.root / "merged"

    @property
    def frozen(self) -> Path:
        return self.root / "frozen"

    @property
    def frozen_record(self) -> Path:
        return self.root / "frozen.json"

    @property
    def eval(self) -> Path:
        return self.root / "eval"

    @property
    def eval_result(self) -> Path:
        return self.eval / "eval.json"

    def relative(self, path: Path) -> str:
        """``path`` as the run files store it: relative to the run directory."""
        return str(path.relative_to(self.root))
