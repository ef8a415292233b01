"""Aggregation: merging, the evidence-weighted vote (explicit numbers), support filtering, dropped list."""

from __future__ import annotations

import pytest

from modularrsi.evolve.aggregate import AggregateConfig, aggregate, evidence_weight, jaccard
from modularrsi.evolve.findings import Finding

CONFIG = AggregateConfig()
LOOP = "Detect the model repeating the same command and intervene with a warning naming the repetition."
PLAN = "Ask the model for a short plan at the start and remind it of the remaining plan steps every turn."


def culprit(task: str, module: str = "agent_loop", mechanism: str = "loop-guard", change: str = LOOP,
            kind: str = "contrastive", passes: int = 2, attempts: int = 3, source: str | None = "same-epoch",
            ) -> Finding:
    return Finding(task=task, lens=module, kind=kind, is_culprit=True, locked_module=module, mechanism=mechanism,
                   suggested_change=change, pass_count=passes, attempts=attempts,
                   pair_source=source if kind == "contrastive" else None)


def not_culprit(task: str, lens: str = "agent_loop", blamed: str | None = None) -> Finding:
    return Finding(task=task, lens=lens, kind="single-sided", is_culprit=False, locked_module=blamed,
                   mechanism="loop-guard")


@pytest.mark.parametrize("finding, weight", [
    (culprit("t", passes=2), 0.5 + 0.5 * 2 / 3),                          # same-epoch pair, 2 of 3 passed
    (culprit("t", passes=1), 0.5 + 0.5 * 1 / 3),                          # same-epoch pair, 1 of 3
    (culprit("t", passes=0, source="memory"), 0.6 * 0.5),                 # all failed, pass from memory
    (culprit("t", passes=1, source="memory"), 0.6 * (0.5 + 0.5 / 3)),     # 1 of 3, pass from memory
    (culprit("t", kind="single-sided", passes=0), 0.5 * 0.5),             # no pair at all
    (culprit("t", kind="efficiency", passes=3), 0.4 * 0.5),               # wasteful pass
    (not_culprit("t"), 0.0),                                              # counterfactual rule: no vote
])
def test_evidence_weight_formula(finding, weight):
    assert evidence_weight(finding, CONFIG) == pytest.approx(weight)


def test_two_strong_pairs_outvote_three_weak_memory_pairs():
    """loop-guard: 2 tasks, each 2/3 same-epoch → 2 × 0.8333 = 1.6667.
    plan-reminder: 3 tasks, each 1/3 with the pair from memory → 3 × 0.6 × 0.6667 = 1.2.
    A plain task count would rank plan-reminder first (3 > 2); the weighted vote ranks loop-guard first
    because each of its pairs is fresher (same epoch) and its tasks fail less often by luck."""
    findings = [culprit("a"), culprit("b"),
                *[culprit(t, mechanism="plan-reminder", change=PLAN, passes=1, source="memory") for t in "cde"]]
    result = aggregate(findings, AggregateConfig(max_directions=1))
    [kept] = result.directions
    assert (kept.mechanism, kept.tasks, kept.raw_support) == ("loop-guard", ["a", "b"], 2)
    assert kept.vote == pytest.approx(5 / 3)
    [dropped] = result.dropped
    assert dropped.direction.mechanism == "plan-reminder" and dropped.direction.raw_support == 3
    assert dropped.direction.vote == pytest.approx(1.2)
    assert dropped.reason == "ranked below the top 1 (max_directions)"


def test_merging_by_mechanism_then_by_word_overlap_never_across_modules():
    reworded = "Detect repeating the same command and intervene with a warning that names the repetition."
    assert jaccard(LOOP, reworded) >= 0.5
    findings = [culprit("a"), culprit("b", mechanism="loop-breaker", change=reworded),
                culprit("c", mechanism="loop-guard", change="something else entirely"),
                culprit("d", mechanism="plan-reminder", change=PLAN),
                culprit("e", module="observation", mechanism="loop-guard", change=LOOP)]
    result = aggregate(findings, AggregateConfig(min_support=1, min_vote=0, max_directions=5))
    groups = sorted((d.module, d.mechanism, tuple(d.tasks)) for d in result.directions)
    assert groups == [("agent_loop", "loop-guard", ("a", "b", "c")), ("agent_loop", "plan-reminder", ("d",)),
                      ("observation", "loop-guard", ("e",))]


def test_a_task_votes_once_with_its_strongest_finding():
    findings = [culprit("a", passes=1), culprit("a", passes=2), culprit("b", kind="single-sided", passes=0)]
    [direction] = aggregate(findings).directions
    assert direction.raw_support == 2 and len(direction.findings) == 3
    assert direction.vote == pytest.approx((0.5 + 0.5 * 2 / 3) + 0.25)
    assert direction.summary == LOOP


def test_non_culprits_and_parse_failures_never_vote():
    failed = Finding(task="z", lens="agent_loop", kind="contrastive", is_culprit=False, parse_error="no JSON")
    findings = [culprit("a"), not_culprit("b", blamed="completion"), not_culprit("c"), failed]
    result = aggregate(findings)
    assert result.non_voting == 3 and result.directions == []
    [dropped] = result.dropped
    assert dropped.direction.tasks == ["a"] and dropped.reason == "support 1 task(s) < min_support 2"


def test_min_vote_drops_weakly_evidenced_directions():
    wasteful = [culprit(t, kind="efficiency", passes=3) for t in "ab"]      # 2 × 0.2 = 0.4
    unpaired = [culprit(t, mechanism="plan-reminder", change=PLAN, kind="single-sided", passes=0)
                for t in "cd"]                                              # 2 × 0.25 = 0.5
    result = aggregate(wasteful + unpaired)
    assert [d.mechanism for d in result.directions] == ["plan-reminder"]
    [dropped] = result.dropped
    assert dropped.reason == "vote 0.400 < min_vote 0.5"


def test_similarity_hook_replaces_the_default():
    findings = [culprit("a"), culprit("b", mechanism="plan-reminder", change=PLAN)]
    assert len(aggregate(findings, AggregateConfig(min_support=1)).directions) == 2
    merged = aggregate(findings, similar=lambda x, y: True).directions
    assert [d.tasks for d in merged] == [["a", "b"]]


def test_result_is_deterministic_whatever_the_input_order():
    findings = [culprit(t, passes=1 + (t in "ac")) for t in "abcd"] + [
        culprit(t, mechanism="plan-reminder", change=PLAN) for t in "xy"]
    forward, backward = aggregate(findings), aggregate(list(reversed(findings)))
    assert forward.model_dump() == backward.model_dump()
    assert [d.id for d in forward.directions] == [d.id for d in backward.directions]
    assert forward.directions[0].id.startswith("agent_loop.loop-guard.")
