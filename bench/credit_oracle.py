"""How much could a gate accept of the right changes the credit bench rejected? Their measured effect (sim).

Input: ``bench/mechanisms.py`` runs in a world (``--config`` naming ``model: sim:world-<seed>``, the credit bench's
evolution tasks, K attempts, gen_0 and each mechanism on the same attempt seeds). From the K pairs of each
task this prints, per mechanism:

- its **effect**: attempt fixes and breaks over the pairs, ΔAcc, and the tasks whose pass rate rose / fell;
- the **shipped gate's acceptance** on those pairs (:func:`gate_acceptance`): each draw permutes every task's K
  pairs, takes the first ``epoch_k`` as the epoch sample (the screen replays them: same seed, same pair) and
  the rest, in order, as the confirm's fresh seeds. The direction's evidence is given the best case — the
  epoch's failing tasks with the most net fixes per pair, 3 or 4 of them as in the bench — and the anchors
  are the epoch's all-pass tasks. Trials count the screen's staging side and both sides of the confirm
  (unshared). The gate's own rules decide (``screen_rule``, ``Tally``, ``confirm_rule``
  with the sim defaults of ``ExecutionConfig``), so no model of the gate is re-written here;
- an **oracle bound** (:func:`oracle_power`): a test that knows the one task where the change helps most and
  its per-pair fix and break rates, and spends ``n`` pairs there — the exact conditional binomial test of
  fixes against breaks at level α on that task alone: an upper reference for a gate of that budget, which
  neither knows that task nor may spend every pair on it.

The pairs come from a finite sample, so the rates carry sampling error (the table prints the counts); the
bracketed figure uses the 95 % Clopper–Pearson upper bound of the best task's fix rate and no breaks: an
optimistic oracle.

``--designs`` also runs other settings of the same gate (:data:`DESIGNS`: without the screen, fewer attempts a
round, fewer rounds) on the same pairs, with the best-case evidence and with evidence drawn at random from
the epoch's failing tasks (a direction that does not know where its mode acts): acceptance against trials
per decision, the trade a budget cap forces.

    python bench/credit_oracle.py RUNS_DIR[=LABEL] ... [--alpha 0.2] [--draws 2000] [--pairs 10 15 20 40] [--designs]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import NamedTuple

import numpy as np
from pydantic import ValidationError
from scipy.stats import beta as beta_dist
from scipy.stats import binom

from modularrsi.evolve.gates.execution import ExecutionConfig, pairs_of
from modularrsi.evolve.gates.sequential import ConfirmRule, Pair, Tally, confirm_rule, screen_rule
from modularrsi.evolve.gates.stats import critical
from modularrsi.rollouts.results import RunResults

Pairs = dict[str, list[tuple[bool, bool]]]


def results_of(run: Path) -> RunResults:
    """A finished run's ``results.json``; a one-line error when it is not one."""
    try:
        return RunResults.model_validate_json((run / "results.json").read_text())
    except (OSError, ValidationError) as exc:
        raise SystemExit(f"error: {run}/results.json: not a finished run's results ({type(exc).__name__}); "
                         "run bench/mechanisms.py --out there again to finish it") from None


def paired(gen0: Path, variant: Path) -> Pairs:
    """Per task, the (gen_0 passed, variant passed) pairs of the attempts both ran, as the execution gate
    pairs them (:func:`~modularrsi.evolve.gates.execution.pairs_of`): a pair whose gen_0 attempt did not get
    a fair chance (a broken task, an infrastructure error) is left out, an invalid variant attempt is a fail."""
    base, other = results_of(gen0), results_of(variant)
    out: Pairs = {}
    for p in pairs_of(base, other, sorted({a.task for a in base.attempts})):
        out.setdefault(p.task, []).append((p.parent, p.staging))
    if not out:
        raise SystemExit(f"error: {variant}: no attempt in common with {gen0} (a run of other tasks or seeds?)")
    return out


class Effect(NamedTuple):
    pairs: int
    fixes: int
    breaks: int
    tasks_up: int
    tasks_down: int
    best_task: str
    best_fixes: int
    best_breaks: int
    best_pairs: int

    @property
    def delta_acc(self) -> float:
        return (self.fixes - self.breaks) / self.pairs


def effect(pairs: Pairs) -> Effect:
    net = {t: sum(s and not p for p, s in ps) - sum(p and not s for p, s in ps) for t, ps in pairs.items()}
    best = max(sorted(pairs), key=lambda t: (net[t], -sum(p and not s for p, s in pairs[t])))
    fixes = sum(s and not p for ps in pairs.values() for p, s in ps)
    breaks = sum(p and not s for ps in pairs.values() for p, s in ps)
    return Effect(pairs=sum(map(len, pairs.values())), fixes=fixes, breaks=breaks,
                  tasks_up=sum(v > 0 for v in net.values()), tasks_down=sum(v < 0 for v in net.values()),
                  best_task=best, best_fixes=sum(s and not p for p, s in pairs[best]),
                  best_breaks=sum(p and not s for p, s in pairs[best]), best_pairs=len(pairs[best]))


def oracle_power(fix: float, brk: float, n: int, alpha: float) -> float:
    """Power of the exact one-sided test at level α of fixes against breaks over ``n`` pairs whose per-pair fix
    and break probabilities are ``fix`` and ``brk``: given m discordant pairs, accept when the breaks are at
    most :func:`~modularrsi.evolve.gates.stats.critical` (m, 2α) — the upper tail of the two-sided sign test at
    2α, so P(accept) ≤ α when fixes and breaks are equally likely (non-randomised: at most α, not exactly)."""
    changed = fix + brk
    if changed <= 0:
        return 0.0
    m = np.arange(n + 1)
    c = np.array([critical(int(k), 2 * alpha) for k in m])
    accept = np.where(c >= 0, binom.cdf(c, m, brk / changed), 0.0)  # breaks ≤ c, i.e. fixes ≥ m − c
    return float((binom.pmf(m, n, changed) * accept).sum())


def upper_rate(k: int, n: int, level: float = 0.95) -> float:
    """One-sided Clopper–Pearson upper bound of a rate seen k times in n."""
    return 1.0 if k >= n else float(beta_dist.ppf(level, k + 1, n - k))


def gate_acceptance(pairs: Pairs, rule: ConfirmRule, config: ExecutionConfig, draws: int, seed: int = 0,
                    epoch_k: int = 2, best_evidence: bool = True) -> tuple[float, float]:
    """(acceptance rate, trials per decision) of the shipped screen + confirm on resampled measured pairs
    (see the module docstring); trials count both sides of the confirm, the staging side of the screen."""
    rng = np.random.default_rng(seed)
    tasks = sorted(pairs)
    net = {t: (sum(s and not p for p, s in pairs[t]) - sum(p and not s for p, s in pairs[t])) / len(pairs[t])
           for t in tasks}
    accepted, trials = 0, 0
    for _ in range(draws):
        order = {t: [pairs[t][i] for i in rng.permutation(len(pairs[t]))] for t in tasks}
        epoch = {t: order[t][:epoch_k] for t in tasks}
        fresh = {t: order[t][epoch_k:] or order[t] for t in tasks}
        failing = [t for t in tasks if not all(p for p, _ in epoch[t])]
        rng.shuffle(failing)
        if best_evidence:
            failing.sort(key=lambda t: -net[t])
        evidence = failing[: 3 + int(rng.random() < 0.4)]
        passing = [t for t in tasks if all(p for p, _ in epoch[t])]
        rng.shuffle(passing)
        anchors = passing[: config.screen_anchors]
        if not evidence:
            continue
        steer = evidence
        if config.screen:
            replayed = [Pair(task=t, attempt=i, parent=p, staging=s) for t in evidence
                        for i, (p, s) in enumerate(epoch[t]) if not p]
            replayed += [Pair(task=t, attempt=0, parent=True, staging=epoch[t][0][1]) for t in anchors]
            trials += len(replayed)
            screened = screen_rule(replayed)
            if not screened.passed:
                continue
            steer = screened.fixed_tasks
        tally, used = Tally(), dict.fromkeys(tasks, 0)
        while True:
            round_pairs = []
            for t in [*steer, *anchors]:
                for _ in range(config.steer_attempts if t in steer else 1):
                    p, s = fresh[t][used[t] % len(fresh[t])]
                    used[t] += 1
                    round_pairs.append(Pair(task=t, attempt=used[t], parent=p, staging=s))
            trials += 2 * len(round_pairs)
            tally = tally.add(round_pairs, anchors)
            decision = confirm_rule(tally, rule)
            if decision != "continue":
                accepted += decision == "accept"
                break
    return accepted / draws, trials / draws


#: Gate settings tried on the measured pairs (label → ExecutionConfig fields); the first is the shipped one.
DESIGNS: dict[str, dict] = {
    "shipped (screen, 3 attempts a round, 6 rounds)": {},
    "no screen": {"screen": False},
    "no screen, 2 attempts a round": {"screen": False, "steer_attempts": 2},
    "no screen, 1 attempt a round": {"screen": False, "steer_attempts": 1},
    "no screen, 1 attempt, 4 rounds, quiet 2": {"screen": False, "steer_attempts": 1, "max_rounds": 4,
                                                "quiet_rounds": 2},
}


def runs_of(specs: list[str]) -> list[tuple[str, str, Pairs]]:
    """(world label, mechanism, pairs) of every finished mechanism run under the given directories."""
    out = []
    for spec in specs:
        root, _, label = spec.partition("=")
        root = Path(root)
        if not (root / "run_gen_0" / "results.json").is_file():
            raise SystemExit(f"error: {root}/run_gen_0/results.json: no finished gen_0 run there (run "
                             "bench/mechanisms.py --out with that directory first)")
        for run in sorted(p for p in root.glob("run_*") if p.name != "run_gen_0" and p.is_dir()):
            if not (run / "results.json").is_file():
                print(f"| {label or root.name} | {run.name[4:]} | (not finished) |", file=sys.stderr)
                continue
            out.append((label or root.name, run.name[4:], paired(root / "run_gen_0", run)))
    return out


def effects_table(runs: list[tuple[str, str, Pairs]], alpha: float | None, draws: int, budgets: list[int]) -> str:
    config = ExecutionConfig(alpha=alpha)
    rule = config.rule(simulated=True)
    cols = " | ".join(f"oracle at {n} pairs (optimistic)" for n in budgets)
    lines = [f"| world | mechanism | pairs | fixes / breaks | ΔAcc | tasks +/− | best task: fixes / breaks of pairs | "
             f"shipped gate accepts (trials) | {cols} |", "|---|---|---|---|---|---|---|---|" + "---|" * len(budgets)]
    sums = np.zeros(1 + len(budgets))
    for label, name, pairs in runs:
        e = effect(pairs)
        acc, trials = gate_acceptance(pairs, rule, config, draws)
        f, b = e.best_fixes / e.best_pairs, e.best_breaks / e.best_pairs
        hi = upper_rate(e.best_fixes, e.best_pairs)
        powers = [oracle_power(f, b, n, rule.alpha) for n in budgets]
        sums += [acc, *powers]
        oracle = " | ".join(f"{p:.2f} ({oracle_power(hi, 0.0, n, rule.alpha):.2f})"
                            for p, n in zip(powers, budgets, strict=True))
        lines.append(f"| {label} | {name} | {e.pairs} | {e.fixes} / {e.breaks} | {e.delta_acc:+.3f} | "
                     f"{e.tasks_up} / {e.tasks_down} | {e.best_fixes} / {e.best_breaks} of {e.best_pairs} | "
                     f"{acc:.2f} ({trials:.0f}) | {oracle} |")
    mean = sums / max(1, len(runs))
    lines.append(f"| mean | | | | | | | {mean[0]:.2f} | " + " | ".join(f"{m:.2f}" for m in mean[1:]) + " |")
    note = f"level {rule.alpha}; shipped gate: {rule.model_dump()}; {draws} resampled decisions each"
    return "\n".join(lines) + "\n\n" + note


def designs_table(runs: list[tuple[str, str, Pairs]], alpha: float | None, draws: int) -> str:
    """Acceptance and trials per decision of each of :data:`DESIGNS`, evidence best-case / random."""
    lines = ["| design | accepted: best-case evidence | random evidence | trials per decision: best-case | random |",
             "|---|---|---|---|---|"]
    for label, fields in DESIGNS.items():
        config = ExecutionConfig(alpha=alpha, **fields)
        rule = config.rule(simulated=True)
        got = np.array([[*gate_acceptance(pairs, rule, config, draws),
                         *gate_acceptance(pairs, rule, config, draws, best_evidence=False)] for _, _, pairs in runs])
        acc_best, trials_best, acc_random, trials_random = got.mean(axis=0)
        lines.append(f"| {label} | {acc_best:.2f} | {acc_random:.2f} | {trials_best:.0f} | {trials_random:.0f} |")
    return "\n".join(lines) + f"\n\nmeans over the {len(runs)} mechanism runs; {draws} resampled decisions each"


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("runs", nargs="+", help="a bench/mechanisms.py --out directory, optionally =LABEL")
    ap.add_argument("--alpha", type=float, default=None, help="level (default: the gate's sim default)")
    ap.add_argument("--draws", type=int, default=2000)
    ap.add_argument("--pairs", type=int, nargs="+", default=[10, 15, 20, 40], help="oracle budgets, in pairs")
    ap.add_argument("--designs", action="store_true", help="also try the gate settings of DESIGNS on the pairs")
    args = ap.parse_args(argv)
    if args.alpha is not None and not 0 < args.alpha < 1:
        raise SystemExit(f"error: --alpha {args.alpha}: a test level lies between 0 and 1 (e.g. 0.2)")
    if args.draws < 1 or min(args.pairs) < 1:
        raise SystemExit(f"error: --draws {args.draws} --pairs {' '.join(map(str, args.pairs))}: each must be at "
                         "least 1")
    runs = runs_of(args.runs)
    print("sim worlds: effects of catalogue mechanisms measured on the credit bench's evolution tasks\n")
    print(effects_table(runs, args.alpha, args.draws, args.pairs))
    if args.designs:
        print("\n" + designs_table(runs, args.alpha, args.draws))


if __name__ == "__main__":
    main()
