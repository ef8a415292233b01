"""A case view: one contrastive pair — a passing and a failing attempt of the same task — side by side.

Candidates, most telling first: for an evolution run, the tasks that contrastive findings of a kept
direction cite, then every other task with a pass and a fail in one epoch's sample (lanes in order,
epochs in order); for an eval directory, a task fixed by the candidate (its attempt *j* failed under the
baseline and passed under the candidate, same seed), then pairs within one side; for a plain run,
tasks with both outcomes. The first candidate whose decisions differ
(:func:`modularrsi.evolve.signals.first_divergence`) is shown; the rows are the two decision sequences
(:func:`modularrsi.evolve.signals.decisions`) aligned by position, the divergence row marked.

Rewards come from the run's ``results.json`` or, for a run in progress, from each trial's
``result.json`` (:func:`modularrsi.tasks.trials.reward_of`). Only reads.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from modularrsi.evolve.memory import TRIAL_NAME
from modularrsi.evolve.signals import Divergence, decisions, first_divergence, load_steps
from modularrsi.report.files import read_model
from modularrsi.report.views import LaneView
from modularrsi.rollouts.results import RunResults

MAX_CANDIDATES = 12
MAX_ROWS = 80


@dataclass(frozen=True)
class Candidate:
    task: str
    where: str
    pass_dir: Path
    fail_dir: Path
    pass_label: str
    fail_label: str


@dataclass
class TurnView:
    step_id: int
    keys: str
    claim: bool
    message: str
    observation: str


@dataclass
class CaseRow:
    index: int
    passing: TurnView | None
    failing: TurnView | None


@dataclass
class Case:
    candidate: Candidate
    divergence: Divergence
    rows: list[CaseRow]
    truncated: bool


def trial_rewards(run_dir: Path) -> dict[str, list[tuple[int, float, Path]]]:
    """Per task: (attempt, reward, trial dir) of the valid attempts of one run directory."""
    out: dict[str, list[tuple[int, float, Path]]] = defaultdict(list)
    results = read_model(run_dir / "results.json", RunResults)
    if results is not None:
        for row in results.attempts:
            trial = run_dir / "trials" / f"{row.task}__a{row.attempt}"
            if row.reward is not None and row.error is None and trial.is_dir():
                out[row.task].append((row.attempt, row.reward, trial))
        return out
    from modularrsi.rollouts.runner import attempt_from_result, read_finished

    for trial in sorted((run_dir / "trials").glob("*__a*")):  # a run still going: its finished trials
        match, result = TRIAL_NAME.match(trial.name), read_finished(trial)
        if match is None or result is None:
            continue
        attempt = attempt_from_result(result, int(match["attempt"]))
        if attempt.reward is not None and attempt.error is None:  # as results.json counts valid attempts
            out[match["task"]].append((attempt.attempt, attempt.reward, trial))
    return out


def _within(run_dir: Path, where: str, prefer: set[str]) -> list[Candidate]:
    tasks = trial_rewards(run_dir)
    found = []
    for task in sorted(tasks, key=lambda t: (t not in prefer, t)):
        passes = sorted(a for a in tasks[task] if a[1] >= 1.0)
        fails = sorted(a for a in tasks[task] if a[1] < 1.0)
        if passes and fails:
            found.append(Candidate(task, where, passes[0][2], fails[0][2], f"attempt {passes[0][0]} (passed)",
                                   f"attempt {fails[0][0]} (failed)"))
    return found


def _fixed(eval_dir: Path) -> list[Candidate]:
    base, cand = trial_rewards(eval_dir / "baseline"), trial_rewards(eval_dir / "candidate")
    found = []
    for task in sorted(base.keys() & cand.keys()):
        after = {a: (r, d) for a, r, d in cand[task]}
        for attempt, reward, trial in sorted(base[task]):
            if reward < 1.0 and attempt in after and after[attempt][0] >= 1.0:
                found.append(Candidate(task, "eval: baseline vs candidate, same seed", after[attempt][1], trial,
                                       f"candidate attempt {attempt} (passed)", f"baseline attempt {attempt} (failed)"))
                break
    return found


def _cited(lanes: list[LaneView]) -> set[str]:
    return {f.task for lane in lanes for e in lane.epochs if e.aggregation
            for d in e.aggregation.directions for f in d.findings
            if f.kind == "contrastive" and f.pair_source == "same-epoch"}


def candidates(kind: str, run_dir: Path, lanes: list[LaneView]) -> list[Candidate]:
    if kind == "run":
        return _within(run_dir, "run", set())
    eval_dir = run_dir if kind == "eval" else run_dir / "eval"
    found: list[Candidate] = []
    if kind == "evolve":
        cited, seen = _cited(lanes), set()
        for lane in lanes:
            for epoch in lane.epochs:
                if epoch.sample_run and epoch.sample_run not in seen:
                    seen.add(epoch.sample_run)
                    found += _within(run_dir / epoch.sample_run, f"lane {lane.name}, epoch {epoch.epoch}", cited)
        found.sort(key=lambda c: c.task not in cited)
    found += _fixed(eval_dir)
    for side in ("candidate", "baseline"):
        found += _within(eval_dir / side, f"eval: {side}", set())
    return found


def _turn_view(turn: Any, steps: dict[int, dict]) -> TurnView:
    step = steps.get(turn.step_id, {})
    observation = step.get("observation") if isinstance(step.get("observation"), dict) else {}
    content = "\n".join(str(r.get("content") or "") for r in observation.get("results", []) if isinstance(r, dict))
    return TurnView(step_id=turn.step_id, keys=(turn.keys or "")[:1500], claim=turn.claim,
                    message=str(step.get("message") or "")[:800], observation=content[:2000])


def build_case(candidate: Candidate) -> Case | None:
    divergence = first_divergence(candidate.pass_dir, candidate.fail_dir)
    if divergence is None:
        return None
    sides = []
    for trial in (candidate.pass_dir, candidate.fail_dir):
        steps = {s["step_id"]: s for s in load_steps(trial) if isinstance(s.get("step_id"), int)}
        sides.append([_turn_view(t, steps) for t in decisions(trial)])
    length = max(len(sides[0]), len(sides[1]))
    rows = [CaseRow(i, sides[0][i] if i < len(sides[0]) else None, sides[1][i] if i < len(sides[1]) else None)
            for i in range(min(length, MAX_ROWS))]
    return Case(candidate=candidate, divergence=divergence, rows=rows, truncated=length > MAX_ROWS)


def pick_case(kind: str, run_dir: Path, lanes: list[LaneView]) -> Case | None:
    """The first of at most ``MAX_CANDIDATES`` candidates whose two attempts diverge (None if none do)."""
    for candidate in candidates(kind, run_dir, lanes)[:MAX_CANDIDATES]:
        case = build_case(candidate)
        if case is not None:
            return case
    return None
