"""Racing a direction's candidates (EpochRun.race): every candidate is screened, the best-screened is confirmed
first, and once one is promoted the others are recorded as raced with their own screen's numbers."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

from modularrsi.evolve.findings import Direction
from modularrsi.evolve.gates import GateVerdict
from modularrsi.evolve.history import Change
from modularrsi.evolve.lane import EpochRun
from modularrsi.evolve.layout import LaneLayout
from modularrsi.evolve.runfiles import Lane


def screen(fixes: int, breaks: int) -> GateVerdict:
    return GateVerdict.ok("execution", f"screen: fixed {fixes} of the failing evidence attempts, broke {breaks} "
                          "anchor attempt(s) of 16 replayed", stage="screen", fixes=fixes, breaks=breaks,
                          fixed_tasks=["t1"] if fixes else [])


class Gate:
    """The confirm stage: accepts the candidates named in ``accept``; remembers the order it was asked in."""

    def __init__(self, accept: set[int], asked: list[tuple[int, float]]):
        self.accept, self.asked = accept, asked

    async def confirm(self, proposal, sample, steer, share):
        self.asked.append((proposal.slot, share))
        if proposal.slot in self.accept:
            return GateVerdict.ok("execution", "confirm: accepted", stage="confirm", decision="accept")
        return GateVerdict.fail("execution", "confirm: rejected", stage="confirm", decision="reject")


def epoch_run(tmp_path: Path, screens: list[GateVerdict], accept: set[int]):
    asked: list[tuple[int, float]] = []
    settled: dict[str, Change] = {}
    config = SimpleNamespace(seed=0, editor=SimpleNamespace(candidates=len(screens), retries=0),
                             gates=SimpleNamespace(execution=SimpleNamespace(second_alpha_share=0.5)))
    evo = SimpleNamespace(config=config, emit=lambda *a, **k: None,
                          execution_gate=lambda where, seed: Gate(accept, asked),
                          settle=lambda where, change: settled.setdefault(change.id, change))
    run = EpochRun(evo=evo, lane=Lane(name="tool_use", modules=["tool_use"]),
                   lane_layout=LaneLayout(tmp_path / "lane"), epoch=0)

    async def candidate(index, slot, direction, parent, sample, avoid):
        base = {"id": f"tool_use/e0/d{index}-{slot}", "lane": "tool_use", "epoch": 0, "module": "tool_use",
                "direction": direction.id, "mechanism": direction.mechanism, "summary": direction.summary,
                "tasks": direction.tasks, "vote": direction.vote, "parent": "g0"}
        return SimpleNamespace(slot=slot, changed_files=[f"modules/tool_use/m{slot}.py"]), [screens[slot]], base

    run.candidate = candidate
    run.execution_sample = lambda direction, buckets: None
    return run, asked, settled


DIRECTION = Direction(id="tool_use.parse-repair.1", module="tool_use", mechanism="parse-repair",
                      summary="repair replies the parser refuses", tasks=["t1", "t2"], findings=[], vote=2.0,
                      raw_support=2)


async def test_the_best_screened_candidate_is_confirmed_first_and_the_other_recorded_as_raced(tmp_path):
    run, asked, settled = epoch_run(tmp_path, [screen(1, 0), screen(4, 0)], accept={1})
    slot, change = await run.race(0, DIRECTION, tmp_path / "parent", buckets=None)
    assert (slot, change.outcome) == (1, "promoted")
    assert asked == [(1, 1.0)]  # the 4-fix candidate first, at the full alpha; nothing else confirmed
    loser = settled["tool_use/e0/d0-0"]
    assert loser.outcome == "rejected" and loser.rejected_by == "execution"
    assert loser.reason == ("raced: another candidate of this direction was promoted (screen: fixed 1 of the "
                            "failing evidence attempts, broke 0 anchor attempt(s) of 16 replayed)")
    assert loser.gates[-1].details["stage"] == "race"


async def test_a_rejected_first_confirm_gives_the_runner_up_its_share_of_alpha(tmp_path):
    run, asked, settled = epoch_run(tmp_path, [screen(2, 1), screen(3, 0), screen(1, 0)], accept={0})
    slot, change = await run.race(0, DIRECTION, tmp_path / "parent", buckets=None)
    # net fixes rank the runner-up: slot 0 (2 - 1 = 1) ties slot 2 (1 - 0 = 1); more fixes wins the tie
    assert asked == [(1, 1.0), (0, 0.5)] and (slot, change.outcome) == (0, "promoted")
    assert settled["tool_use/e0/d0-1"].reason == "confirm: rejected"
    assert settled["tool_use/e0/d0-2"].reason.startswith("raced: another candidate of this direction was "
                                                         "promoted (screen: fixed 1 ")
