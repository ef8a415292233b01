"""Aggregation: merge similar culprit findings into directions, vote, keep the best supported.

Only culprit findings vote (counterfactual rule: a non-culprit suggests nothing). Findings of
different modules never merge (a direction changes one module). Within a module two findings are
*similar* when they name the same mechanism, or when the word sets of their suggested changes overlap
by at least ``similarity_threshold`` (Jaccard) — or, when given, by a caller's ``similar`` hook
(embeddings, an LLM judge). Clusters are single-link, built in a fixed order: the result is
deterministic for the same findings.

A direction's vote is evidence-weighted (:func:`evidence_weight`): each supporting task counts once,
with the weight of its strongest finding. ``raw_support`` is the number of distinct tasks.
"""

from __future__ import annotations

import hashlib
import re
from collections import Counter
from collections.abc import Callable, Iterable

from pydantic import BaseModel, ConfigDict, Field

from modularrsi.evolve.findings import Direction, Finding, direction_summary

Similar = Callable[[Finding, Finding], bool]
STOPWORDS = frozenset(re.findall(r"\w+", "a an and are as at be before by for from in into is it its of on once or "
                                      "so than that the their then this to under when which with"))


class AggregateConfig(BaseModel):
    """How findings become directions and which directions are kept (fields are documented one by one)."""

    model_config = ConfigDict(extra="forbid")

    similarity_threshold: float = Field(default=0.5, ge=0, le=1,
                                        description="Jaccard overlap of suggested-change words that merges findings.")
    min_support: int = Field(default=2, ge=1, description="Fewest distinct supporting tasks a direction needs.")
    min_vote: float = Field(default=0.5, ge=0, description="Smallest evidence-weighted vote a direction needs.")
    max_directions: int = Field(default=3, ge=1, description="Directions kept per lane and epoch (highest vote).")
    contrastive_weight: float = Field(default=1.0, ge=0, description="Kind factor of a contrastive finding.")
    single_sided_weight: float = Field(default=0.5, ge=0, description="Kind factor of a single-sided finding.")
    efficiency_weight: float = Field(default=0.4, ge=0, description="Kind factor of an efficiency finding.")
    memory_discount: float = Field(default=0.6, ge=0, le=1,
                                   description="Factor of a contrastive pair whose passing side is from memory.")


class DroppedDirection(BaseModel):
    model_config = ConfigDict(extra="forbid")
    direction: Direction
    reason: str


class Aggregation(BaseModel):
    """Kept directions (best first), the dropped ones with why, and how many findings did not vote."""

    model_config = ConfigDict(extra="forbid")
    directions: list[Direction]
    dropped: list[DroppedDirection]
    non_voting: int = 0


def evidence_weight(finding: Finding, config: AggregateConfig) -> float:
    """The weight of one culprit finding's vote::

        weight = kind × source × mix
        kind   = contrastive_weight (1.0) | single_sided_weight (0.5) | efficiency_weight (0.4)
        source = memory_discount (0.6) when the passing side of the pair is recalled from memory, else 1
        mix    = 0.5 + 0.5 × p for a task that failed at least once, p = passes / attempts this epoch
                 (2 of 3 passed: the failure is more clearly a harness slip than at 1 of 3); 0.5 for a
                 task that passed every attempt (p says nothing about a wasteful pass)

    With the defaults and K = 3: same-epoch pair 2/3 → 0.833, 1/3 → 0.667; memory pair 0/3 → 0.30
    (1/3 → 0.40); single-sided → 0.25; efficiency → 0.20. Non-culprit findings weigh 0.
    """
    if not finding.is_culprit:
        return 0.0
    kind = {"contrastive": config.contrastive_weight, "single-sided": config.single_sided_weight,
            "efficiency": config.efficiency_weight}[finding.kind]
    source = config.memory_discount if finding.kind == "contrastive" and finding.pair_source == "memory" else 1.0
    failed_once = finding.kind != "efficiency" and finding.pass_count < finding.attempts
    mix = 0.5 + 0.5 * finding.pass_fraction if failed_once else 0.5
    return kind * source * mix


def words(text: str) -> frozenset[str]:
    return frozenset(w for w in re.findall(r"[a-z0-9]+", text.lower()) if w not in STOPWORDS and len(w) > 1)


def jaccard(a: str, b: str) -> float:
    left, right = words(a), words(b)
    return len(left & right) / len(left | right) if left | right else 0.0


def default_similar(config: AggregateConfig) -> Similar:
    """Same non-empty mechanism, else suggested-change overlap ≥ ``config.similarity_threshold``."""

    def similar(a: Finding, b: Finding) -> bool:
        if a.mechanism and a.mechanism == b.mechanism:
            return True
        return jaccard(a.suggested_change, b.suggested_change) >= config.similarity_threshold

    return similar


def merge(findings: Iterable[Finding], similar: Similar) -> list[list[Finding]]:
    """Single-link clusters of culprit findings; a cluster never mixes modules."""
    clusters: list[list[Finding]] = []
    for finding in sorted(findings, key=lambda f: (f.locked_module or "", f.mechanism, f.task, f.lens)):
        home = next((c for c in clusters if c[0].locked_module == finding.locked_module
                     and any(similar(finding, other) for other in c)), None)
        if home is None:
            clusters.append([finding])
        else:
            home.append(finding)
    return clusters


def direction(cluster: list[Finding], config: AggregateConfig) -> Direction:
    """One direction from a cluster: each task votes once, with its strongest finding."""
    best: dict[str, Finding] = {}
    for finding in cluster:
        held = best.get(finding.task)
        if held is None or evidence_weight(finding, config) > evidence_weight(held, config):
            best[finding.task] = finding
    tasks = sorted(best)
    mechanisms = Counter(f.mechanism for f in cluster if f.mechanism)
    mechanism = min(mechanisms, key=lambda m: (-mechanisms[m], m)) if mechanisms else ""
    strongest_first = sorted(cluster, key=lambda f: (-evidence_weight(f, config), f.task))
    module = cluster[0].locked_module
    digest = hashlib.sha1(f"{module}|{mechanism}|{','.join(tasks)}".encode()).hexdigest()[:8]
    summary = direction_summary(module, mechanism, strongest_first, tasks)
    return Direction(id=f"{module}.{mechanism or 'change'}.{digest}", module=module, mechanism=mechanism,
                     summary=summary, tasks=tasks, findings=cluster, raw_support=len(tasks),
                     vote=round(sum(evidence_weight(f, config) for f in best.values()), 6))


def aggregate(findings: Iterable[Finding], config: AggregateConfig | None = None,
              similar: Similar | None = None) -> Aggregation:
    """Directions above ``min_support`` and ``min_vote``, the top ``max_directions`` by vote (ties: more
    tasks, then id); everything else in ``dropped`` with its reason."""
    config = config or AggregateConfig()
    findings = list(findings)
    voters = [f for f in findings if f.is_culprit]
    ranked = sorted((direction(c, config) for c in merge(voters, similar or default_similar(config))),
                    key=lambda d: (-d.vote, -d.raw_support, d.id))
    kept: list[Direction] = []
    dropped: list[DroppedDirection] = []
    for candidate in ranked:
        reason = _reason_to_drop(candidate, config, len(kept))
        if reason:
            dropped.append(DroppedDirection(direction=candidate, reason=reason))
        else:
            kept.append(candidate)
    return Aggregation(directions=kept, dropped=dropped, non_voting=len(findings) - len(voters))


def _reason_to_drop(candidate: Direction, config: AggregateConfig, kept: int) -> str | None:
    if candidate.raw_support < config.min_support:
        return f"support {candidate.raw_support} task(s) < min_support {config.min_support}"
    if candidate.vote < config.min_vote:
        return f"vote {candidate.vote:.3f} < min_vote {config.min_vote}"
    if kept >= config.max_directions:
        return f"ranked below the top {config.max_directions} (max_directions)"
    return None
