"""The execution verdict is read back typed: the pairs a confirm ran reach integration as pairs (not parsed
from the ``"0→1"`` display strings), and only an execution verdict can make a change undecided."""

from __future__ import annotations

from modularrsi.evolve.gates import GateVerdict
from modularrsi.evolve.gates.execution import ExecutionConfig, ExecutionGate
from modularrsi.evolve.gates.sequential import ExecutionDetails, Pair, Tally
from modularrsi.evolve.history import Change
from modularrsi.rollouts.config import RunConfig

PAIRS = [Pair(task="a", attempt=0, parent=False, staging=True), Pair(task="a", attempt=1, parent=True, staging=True),
         Pair(task="a", attempt=2, parent=True, staging=False), Pair(task="b", attempt=0, parent=False, staging=False),
         Pair(task="anchor", attempt=0, parent=True, staging=True)]


def confirm_verdict(tmp_path, decision: str) -> GateVerdict:
    gate = ExecutionGate(RunConfig(), tmp_path, ExecutionConfig())
    tally = Tally().add(PAIRS, ["anchor"])
    return gate._verdict(decision, tally, gate.config.rule(True), PAIRS, ["anchor"], {}, None)


def change(verdicts: list[GateVerdict]) -> Change:
    fields = {"id": "c1", "lane": "tool_use", "epoch": 1, "module": "tool_use", "parent": "gen_0",
              "generation": "gen_1"}
    return Change.decided(fields, verdicts)


def test_a_recorded_confirm_gives_its_pairs_back_typed(tmp_path):
    recorded = Change.model_validate_json(change([confirm_verdict(tmp_path, "accept")]).model_dump_json())
    details = ExecutionDetails.of(recorded.gates[-1])
    assert details is not None and details.stage == "confirm" and details.decision == "accept"
    assert details.pairs_detail == PAIRS
    assert details.task_outcomes() == {"a": (2, 3), "b": (0, 1), "anchor": (1, 1)}
    flips = recorded.gates[-1].details["per_task"]  # the display form says the same
    assert {t: (sum(f[-1] == "1" for f in fs), len(fs)) for t, fs in flips.items()} == details.task_outcomes()


def test_only_an_execution_verdict_makes_a_change_undecided(tmp_path):
    assert change([confirm_verdict(tmp_path, "undecided")]).undecided
    assert not change([confirm_verdict(tmp_path, "reject")]).undecided
    other = GateVerdict.fail("review", "looks task-specific", decision="undecided")  # another gate's word
    assert ExecutionDetails.of(other) is None and not change([other]).undecided
