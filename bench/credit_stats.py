"""Do the credit bench's methods separate, world by world, and how many worlds would it take if not?

Each method is compared with lanes over the worlds both finished (paired: the same world, tasks and seeds),
by two per-world values: right − false promotions (what it promoted, judged by the ground truth) and the
held-out gain. A world where lanes' value is higher is a win for lanes, lower a loss; ties say nothing. The
test is the exact two-sided sign test over worlds - the project tests tasks the same way
(:mod:`modularrsi.evolve.gates.stats`).

When that test does not separate two methods, the worlds it would take are a plug-in estimate: the smallest
number of worlds at which the exact sign test at ``alpha`` rejects with probability at least ``power`` when
worlds win, lose and tie at the rates this run saw. It is itself estimated from a few worlds; when wins and
losses were equally frequent no number of worlds is predicted to separate the methods ("no difference seen").

    python bench/credit_stats.py bench/results/credit/<key> [--alpha 0.05]   # the table of committed scores
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable
from pathlib import Path

import numpy as np
from credit_truth import judged

from modularrsi.evolve.gates.stats import task_sign_test_p, units_needed

VALUES: dict[str, Callable[[dict], float]] = {"right − false": lambda r: r["right"] - r["false"],
                                              "held-out gain": lambda r: r["gain"]}


def separation(rows: list[dict], methods: list[str], baseline: str = "lanes", alpha: float = 0.05,
               power: float = 0.8) -> str:
    """The table: per method against ``baseline`` and per value, worlds won / lost / tied, the mean difference,
    the sign test's p and whether it separates them, else the worlds it would take."""
    by = {(r["method"], r["world"]): r for r in rows}
    lines = [f"| {baseline} against | by | worlds | {baseline} higher / lower / tied | mean difference | sign p | "
             f"worlds to separate (p < {alpha:g} with power {power:g}) |", "|---|---|---|---|---|---|---|"]
    for method in methods:
        if method == baseline:
            continue
        worlds = sorted(w for (m, w) in by if m == method and (baseline, w) in by)
        if not worlds:
            continue
        for name, value in VALUES.items():
            d = np.array([value(by[baseline, w]) - value(by[method, w]) for w in worlds], dtype=float)
            win, loss = int((d > 0).sum()), int((d < 0).sum())
            p = task_sign_test_p(win, loss)
            if p < alpha:
                verdict = f"separated by these {len(worlds)}"
            else:
                need = units_needed(win / len(d), loss / len(d), alpha, power)
                verdict = "no difference seen" if need is None else f"about {need}"
            lines.append(f"| {method} | {name} | {len(worlds)} | {win} / {loss} / {len(d) - win - loss} | "
                         f"{d.mean():+.3f} | {p:.3f} | {verdict} |")
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description="the separation table of a directory of credit-bench scores")
    ap.add_argument("scores", type=Path, help="bench/results/credit/<key>: one JSON file per finished run")
    ap.add_argument("--alpha", type=float, default=0.05, help="the sign test's level (e.g. 0.05 / looks)")
    args = ap.parse_args()
    if not 0 < args.alpha < 1:
        raise SystemExit(f"error: --alpha {args.alpha}: a test level lies between 0 and 1 (e.g. 0.05, or 0.05 / looks)")
    files = [p for p in sorted(args.scores.glob("w*-*.json")) if not p.stem.endswith("-best")]
    rows = [judged(json.loads(p.read_text())) for p in files]  # the ground truth as it stands
    if not rows:
        raise SystemExit(f"error: {args.scores}: no run scores (w<world>-<method>.json) there")
    methods = list(dict.fromkeys(r["method"] for r in rows))
    print(separation(rows, methods, alpha=args.alpha))


if __name__ == "__main__":
    main()
