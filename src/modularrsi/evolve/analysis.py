"""Analysis: one :class:`Finding` per task under one lens (the module a lane may change).

:func:`analyse` picks the kind of analysis from the evidence — *contrastive* when a passing and a
failing trajectory of the task exist (same epoch, or the passing one recalled from memory),
*single-sided* for failures without a pair, *efficiency* for tasks that passed every attempt — settles
the buckets that need no analyst (infrastructure failures, unreachable tasks, efficient passes) and
hands the rest to an :class:`Analyst`:

- :class:`~modularrsi.offline.sim_analyst.SimAnalyst` — deterministic rules over the signals (the offline
  world's; reached by name, see :mod:`modularrsi.util.wing`);
- :class:`~modularrsi.evolve.analysis_llm.LLMAnalyst` — one call to any ChatModel, answer repaired.

Counterfactual rule (enforced by :class:`Finding`): not a culprit → no suggested change. An analyst
never raises on a task it cannot diagnose; it returns a non-culprit finding saying why.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Iterable
from typing import Protocol

from modularrsi.evolve.analysis_llm import LLMAnalyst
from modularrsi.evolve.findings import (
    Finding,
    Kind,
    Module,
    TaskEvidence,
    strength_fields,
)
from modularrsi.evolve.symptoms import SimAnalystConfig

__all__ = ["Analyst", "LLMAnalyst", "SimAnalystConfig", "analyse", "analyse_all", "finding_kind"]


class Analyst(Protocol):
    """Diagnoses one task under one lens; returns a finding and never raises on bad evidence or answers."""

    name: str

    async def analyse(self, evidence: TaskEvidence, lens: Module, kind: Kind) -> Finding: ...


def bucket_key(name: str) -> str:
    """``"All-pass wasteful"`` → ``"all_pass_wasteful"``."""
    return re.sub(r"[^a-z0-9]+", "_", name.lower()).strip("_")


def finding_kind(evidence: TaskEvidence) -> Kind:
    """efficiency: no failing attempt this epoch; contrastive: a passing one too, or a pair from memory."""
    if not evidence.failing:
        return "efficiency"
    return "contrastive" if evidence.pass_count or evidence.pair_source else "single-sided"


def _settled(evidence: TaskEvidence, lens: Module, kind: Kind) -> Finding | None:
    """The finding of a bucket that needs no analyst, or None."""
    key = bucket_key(evidence.bucket)
    reason = None
    if key.startswith("infra"):
        reason = "infrastructure failure: excluded from harness diagnosis"
    elif "unreachable" in key:
        reason = "unreachable: no attempt came close; no harness change is expected to flip it"
    elif kind == "efficiency" and "wasteful" not in key:
        reason = "all attempts passed efficiently: nothing to change"
    if reason is None:
        return None
    return Finding(lens=lens, kind=kind, is_culprit=False, divergence=reason, analyst="rules",
                   **strength_fields(evidence))


async def analyse(evidence: TaskEvidence, lens: Module, analyst: Analyst) -> Finding:
    """One finding for ``evidence`` under ``lens``, by ``analyst`` unless the bucket settles it."""
    if evidence.failing and evidence.pass_count and evidence.pair_source is None:
        evidence = evidence.model_copy(update={"pair_source": "same-epoch"})
    kind = finding_kind(evidence)
    return _settled(evidence, lens, kind) or await analyst.analyse(evidence, lens, kind)


async def analyse_all(evidence: Iterable[TaskEvidence], lens: Module, analyst: Analyst,
                      concurrency: int = 4) -> list[Finding]:
    """Findings for every task, in input order, at most ``concurrency`` analyst calls at a time."""
    gate = asyncio.Semaphore(concurrency)

    async def one(item: TaskEvidence) -> Finding:
        async with gate:
            return await analyse(item, lens, analyst)

    return list(await asyncio.gather(*(one(e) for e in evidence)))
