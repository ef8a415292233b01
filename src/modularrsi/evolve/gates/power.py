"""Operating characteristics of the execution gate, measured on synthetic per-task outcomes (no sandbox).

One simulated decision: a pool of tasks, each with a hidden pass rate drawn uniformly from
``[rate_low, rate_high]``; an epoch sample of ``k`` attempts per task picks the evidence (tasks with a
failure, at most ``evidence``) and the anchors (all-pass tasks, at most ``anchors``), as a lane does.
The change multiplies each task's failure rate by ``1 - effect`` (``effect = 0``: a change that does
nothing; ``0.5``: it removes half of every task's failures). The parent and the change then run ``k``
fresh attempts per sample task, independently (the worst case for a null change: with the same seeds a
deterministic agent would give identical outcomes), and :func:`~.execution.decide` decides.
``reuse_sample=True`` instead takes the parent's side from the epoch sample the evidence was chosen
from — the design this gate replaced, kept here to show its bias.

``python -m modularrsi.evolve.gates.power`` prints the table quoted in docs/evolve.md.
"""

from __future__ import annotations

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from modularrsi.evolve.gates.execution import ExecutionConfig, Pair, decide


class Scenario(BaseModel):
    """The synthetic pool and sample sizes of one batch of simulated gate decisions."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    tasks: int = Field(default=30, ge=1, description="Tasks in the pool.")
    k: int = Field(default=3, ge=1, description="Attempts per task, in the epoch sample and on each gate side.")
    evidence: int = Field(default=8, ge=1, description="Most evidence tasks per decision.")
    anchors: int = Field(default=4, ge=0, description="Most anchor tasks per decision.")
    rate_low: float = Field(default=0.1, ge=0, le=1, description="Lowest hidden pass rate of a task.")
    rate_high: float = Field(default=0.9, ge=0, le=1, description="Highest hidden pass rate of a task.")
    effect: float = Field(default=0.0, ge=0, le=1, description="Share of each task's failures the change removes.")
    reuse_sample: bool = Field(default=False, description="Parent side = the epoch sample (the biased design).")


def _pairs(task: int, parent: np.ndarray, staging: np.ndarray) -> list[Pair]:
    return [Pair(task=f"t{task}", attempt=i, parent=bool(a), staging=bool(b)) for i, (a, b) in
            enumerate(zip(parent, staging, strict=True))]


def one_decision(s: Scenario, config: ExecutionConfig, rng: np.random.Generator) -> bool:
    """Draw a pool, select a sample from an epoch run, run both sides, return whether the gate accepts."""
    rates = rng.uniform(s.rate_low, s.rate_high, s.tasks)
    improved = 1 - (1 - rates) * (1 - s.effect)
    epoch = rng.random((s.tasks, s.k)) < rates[:, None]
    failing = [t for t in rng.permutation(s.tasks) if not epoch[t].all()][: s.evidence]
    passing = [t for t in rng.permutation(s.tasks) if epoch[t].all()][: s.anchors]
    sides = {}
    for t in [*failing, *passing]:
        parent = epoch[t] if s.reuse_sample else rng.random(s.k) < rates[t]
        sides[t] = _pairs(int(t), parent, rng.random(s.k) < improved[t])
    evidence = [p for t in failing for p in sides[t]]
    anchors = [p for t in passing for p in sides[t]]
    return bool(evidence) and decide(evidence, anchors, config).passed


def acceptance_rate(s: Scenario, decisions: int, config: ExecutionConfig | None = None, seed: int = 0) -> float:
    """Share of ``decisions`` simulated decisions the gate accepts."""
    rng = np.random.default_rng(seed)
    config = config or ExecutionConfig(k=s.k)
    return sum(one_decision(s, config, rng) for _ in range(decisions)) / decisions


def table(decisions: int = 2000) -> list[tuple[str, float]]:
    """The figures of docs/evolve.md: acceptance rate by effect and design (k=3, alpha=0.1)."""
    rows = [("no effect, evidence test alone, parent re-run (this gate)", Scenario(anchors=0)),
            ("no effect, evidence test alone, parent = epoch sample (old)", Scenario(anchors=0, reuse_sample=True)),
            ("no effect, with 4 anchors", Scenario()),
            *[(f"removes {e:.0%} of failures, 8 evidence tasks, 4 anchors", Scenario(effect=e))
              for e in (0.25, 0.5, 0.75, 1.0)],
            *[(f"removes {e:.0%} of failures, 8 evidence tasks, no anchors", Scenario(effect=e, anchors=0))
              for e in (0.5, 0.75)],
            *[(f"removes {e:.0%} of failures, 4 evidence tasks, 4 anchors", Scenario(effect=e, evidence=4))
              for e in (0.5, 0.75, 1.0)]]
    return [(label, acceptance_rate(s, decisions)) for label, s in rows]


if __name__ == "__main__":
    for label, rate in table():
        print(f"{label:62s} {rate:.3f}")
