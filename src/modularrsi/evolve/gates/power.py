"""Operating characteristics of the execution gate, from simulated decisions (no sandbox).

Each decision runs the gate's own rules (:func:`~.sequential.screen_rule`, :class:`~.sequential.Tally`,
:func:`~.sequential.confirm_rule`) on synthetic outcomes:

- a pool of ``tasks`` tasks, each with a hidden pass rate uniform in ``[rate_low, rate_high]``; an epoch
  sample of ``k`` attempts each; the direction's evidence is ``evidence`` of its failing tasks (the
  bench's directions have about 3.4: 3 or 4 with ``evidence_spread``), its anchors the all-pass tasks;
- the change acts on each evidence task with probability ``acts_on`` (a mechanism helps only the tasks
  its failure mode touches) and there removes a share ``fix`` of the failing attempts (pass rate r →
  1 − (1 − r)(1 − fix)); it breaks a share ``harm`` of the passing attempts of each task it harms (each
  non-evidence task with probability ``harms``, each evidence task it does not help with ``harms_evidence``);
- the two sides of a pair share their random draw with probability ``coupling`` (``sim`` is coupled
  by its seed: 1; a real model through the response cache's replay is partly coupled; 0 is two
  independent draws), otherwise draw independently;
- the screen replays the failing evidence attempts and ``screen_anchors`` anchors' first attempt; the
  confirm runs rounds of fresh pairs on the tasks the screen saw fixed plus ``anchors`` anchors.

A trial is one attempt of one side; parent and staging trials are counted apart (the lane shares the
parent's across proposals, :mod:`.execution`). ``python -m modularrsi.evolve.gates.power`` prints the table
of docs/evolve.md.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np
from pydantic import BaseModel, ConfigDict

from modularrsi.evolve.gates.sequential import ConfirmRule, Tally, confirm_rule, screen_rule


@dataclass(frozen=True)
class Scenario:
    """One population of proposals (see the module docstring); the default is the credit bench's."""

    tasks: int = 10
    rate_low: float = 0.1
    rate_high: float = 0.9
    k: int = 2
    evidence: int = 3
    evidence_spread: float = 0.4  # probability of one more evidence task
    anchors: int = 4
    screen_anchors: int = 4  # as ExecutionConfig.screen_anchors
    acts_on: float = 2 / 3
    fix: float = 0.0
    harm: float = 0.0
    harms: float = 0.0
    harms_evidence: float = 0.0
    coupling: float = 1.0
    screen: bool = True
    steer_attempts: int = 3  # as ExecutionConfig.steer_attempts


BENCH = Scenario()
INERT = BENCH
HARMFUL = replace(BENCH, harm=0.35, harms=1.0, harms_evidence=1.0)
#: fixes 35 % of the failing attempts on 2/3 of the evidence tasks (the right change of the power row) and
#: breaks 20 % of the passes of every other task: as many passes lost over the pool as that change gains
#: (:func:`net_effect` ≈ −0.035 against +0.035)
NET_HARMFUL = replace(BENCH, fix=0.35, harm=0.2, harms=1.0)
#: the same help, a quarter of the passes broken on half the other tasks: only just net-harmful (≈ −0.01)
BORDERLINE = replace(BENCH, fix=0.35, harm=0.25, harms=0.5)


@dataclass(frozen=True)
class _Pair:
    task: str
    parent: bool
    staging: bool


class Outcome(BaseModel):
    """What the simulated gate did with one population of proposals."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    decisions: int
    accepted: float
    screened_out: float
    trials: float
    trials_if_accepted: float | None


def _draw(rng: np.random.Generator, parent_rate: float, staging_rate: float, coupling: float,
          n: int) -> tuple[np.ndarray, np.ndarray]:
    u = rng.random(n)
    v = np.where(rng.random(n) < coupling, u, rng.random(n))
    return u < parent_rate, v < staging_rate


def _staging_rates(s: Scenario, rates: np.ndarray, evidence: list[int], rng: np.random.Generator) -> np.ndarray:
    out = rates.copy()
    helped = {t for t in evidence if rng.random() < s.acts_on}
    for t in range(s.tasks):
        if t in helped:
            out[t] = 1 - (1 - rates[t]) * (1 - s.fix)
        elif rng.random() < (s.harms_evidence if t in evidence else s.harms):
            out[t] = rates[t] * (1 - s.harm)
    return out


def one_decision(s: Scenario, rule: ConfirmRule, rng: np.random.Generator) -> tuple[bool, int, bool]:
    """(accepted, trials, screened out) of one simulated proposal."""
    rates = rng.uniform(s.rate_low, s.rate_high, s.tasks)
    epoch = rng.random((s.tasks, s.k)) < rates[:, None]
    n_evidence = s.evidence + int(rng.random() < s.evidence_spread)
    failing = [int(t) for t in rng.permutation(s.tasks) if not epoch[t].all()][:n_evidence]
    passing = [int(t) for t in rng.permutation(s.tasks) if epoch[t].all()]
    if not failing:
        return False, 0, True
    after = _staging_rates(s, rates, failing, rng)
    trials, steer = 0, failing
    if s.screen:
        replayed = []
        for t in failing:  # the epoch's failing attempts: the parent draw was ≥ its rate; replay the staging side
            for _ in range(int((~epoch[t]).sum())):
                u = rng.uniform(rates[t], 1.0)
                v = u if rng.random() < s.coupling else rng.random()
                replayed.append(_Pair(str(t), False, bool(v < after[t])))
        for t in passing[: s.screen_anchors]:
            u = rng.uniform(0.0, rates[t])
            v = u if rng.random() < s.coupling else rng.random()
            replayed.append(_Pair(str(t), True, bool(v < after[t])))
        trials += len(replayed)
        screened = screen_rule(replayed)
        if not screened.passed:
            return False, trials, True
        steer = [int(t) for t in screened.fixed_tasks if int(t) in failing]
    confirm = [*steer, *passing[: s.anchors]]
    tally = Tally()
    while True:
        pairs = []
        for t in confirm:
            n = s.steer_attempts if t in steer else 1
            parent, staging = _draw(rng, rates[t], after[t], s.coupling, n)
            pairs.extend(_Pair(str(t), bool(a), bool(b)) for a, b in zip(parent, staging, strict=True))
        trials += 2 * len(pairs)
        tally = tally.add(pairs, anchors=[str(t) for t in confirm if t not in steer])
        decision = confirm_rule(tally, rule)
        if decision != "continue":
            return decision == "accept", trials, False


def net_effect(s: Scenario, draws: int = 20_000, seed: int = 0) -> float:
    """Expected passes gained minus lost per task of the pool, per attempt (< 0: net-harmful)."""
    rng = np.random.default_rng(seed)
    total = 0.0
    for _ in range(draws // s.tasks):
        rates = rng.uniform(s.rate_low, s.rate_high, s.tasks)
        evidence = [int(t) for t in rng.permutation(s.tasks)[: s.evidence]]
        total += float((_staging_rates(s, rates, evidence, rng) - rates).sum())
    return total / (draws // s.tasks * s.tasks)


def simulate(s: Scenario, rule: ConfirmRule, decisions: int, seed: int = 0) -> Outcome:
    """The gate's acceptance rate, screen rejections and trials per decision over ``decisions`` proposals."""
    rng = np.random.default_rng(seed)
    runs = [one_decision(s, rule, rng) for _ in range(decisions)]
    accepted = [t for a, t, _ in runs if a]
    return Outcome(decisions=decisions, accepted=sum(a for a, _, _ in runs) / decisions,
                   screened_out=sum(o for _, _, o in runs) / decisions,
                   trials=sum(t for _, t, _ in runs) / decisions,
                   trials_if_accepted=sum(accepted) / len(accepted) if accepted else None)


def acceptance_rate(s: Scenario, decisions: int, rule: ConfirmRule, seed: int = 0) -> float:
    return simulate(s, rule, decisions, seed).accepted


def rows() -> list[tuple[str, Scenario]]:
    """The scenarios of docs/evolve.md's table."""
    return [("does nothing (coupled pairs, as sim)", INERT),
            ("does nothing, uncoupled pairs (a real model without replay)", replace(INERT, coupling=0.0)),
            ("does nothing, uncoupled, no screen", replace(INERT, coupling=0.0, screen=False)),
            ("harmful: breaks 35% of passes everywhere", HARMFUL),
            ("net-harmful mix: fixes 35% on 2/3 of evidence, breaks 20% of passes on the rest", NET_HARMFUL),
            ("net-harmful mix, uncoupled", replace(NET_HARMFUL, coupling=0.0)),
            ("barely net-harmful: fixes as above, breaks 25% of passes on half the rest", BORDERLINE),
            *[(f"fixes {f:.0%} of failures on 2/3 of evidence tasks", replace(BENCH, fix=f)) for f in (0.2, 0.35, 0.5)],
            ("fixes 35%, half-coupled pairs (a real model with replay)", replace(BENCH, fix=0.35, coupling=0.5)),
            ("fixes 35%, no screen", replace(BENCH, fix=0.35, screen=False)),
            ("fixes 35%, acts on every evidence task", replace(BENCH, fix=0.35, acts_on=1.0))]


def table(rule: ConfirmRule, decisions: int = 2000) -> list[tuple[str, Outcome]]:
    return [(label, simulate(s, rule, decisions, seed=1)) for label, s in rows()]


if __name__ == "__main__":
    from modularrsi.evolve.gates.execution import ExecutionConfig

    for simulated in (True, False):
        rule = ExecutionConfig().rule(simulated)
        print(f"\n{'sim' if simulated else 'real-model'} defaults: {rule.model_dump()}")
        print("| proposal | accepted | screened out | trials per decision | trials when accepted |")
        print("|---|---|---|---|---|")
        for label, o in table(rule):
            shown = f"{o.trials_if_accepted:.1f}" if o.trials_if_accepted is not None else "—"
            print(f"| {label} | {o.accepted:.3f} | {o.screened_out:.2f} | {o.trials:.1f} | {shown} |")
