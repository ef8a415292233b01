"""Rehearse an evolution's model roles on trials a model already made, before an evolution spends hours.

    python bench/small_tier/rehearse.py RUN_DIR [--config bench/small_tier/evolve-catalogue.yaml]
        [--tasks T...] [--lenses tool_use completion] [--review json_repair lenient_parse] [--out DIR]

RUN_DIR is a ``modularrsi run`` (or ``tasks difficulty``) directory of gen_0 - e.g. the small tier's
``runs/small-tier/difficulty-pool``. Its finished trials become the evidence an epoch's analysis would see
(every task with a pass and a fail, or the ``--tasks`` given), and the analyst role of ``--config`` analyses
each under each lens, exactly as a lane does; each finding is printed with its verdict (culprit, module,
mechanism, why it was dropped) and the seconds it took. ``--review`` then puts the catalogue mechanisms named
on gen_0 (their module from the catalogue) before the config's reviewer role and prints each verdict. Replies
are cached in ``--out`` (default ``runs/small-tier/rehearse``), so running again costs nothing.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import tempfile
import time
from pathlib import Path

from modularrsi.evolve.analysis import LLMAnalyst, analyse_all
from modularrsi.evolve.buckets import route
from modularrsi.evolve.config import EvolveConfig
from modularrsi.evolve.evidence import epoch_evidence
from modularrsi.evolve.gates.review import ReviewGate
from modularrsi.evolve.memory import TrajectoryMemory
from modularrsi.harness import BASELINE
from modularrsi.models.registry import make_model
from modularrsi.offline.catalogue import CATALOGUE
from modularrsi.offline.sim_editor import SimEditor

ROOT = Path(__file__).resolve().parents[2]


def trial_runs(run_dir: Path) -> list[Path]:
    """The run directories under RUN_DIR holding trials (``tasks difficulty`` nests one per model)."""
    return sorted({p.parents[2] for p in run_dir.glob("**/trials/*/result.json")})


async def rehearse(args: argparse.Namespace) -> int:
    config = EvolveConfig.load(args.config)
    args.out.mkdir(parents=True, exist_ok=True)
    runs = trial_runs(args.run_dir)
    if not runs:
        sys.exit(f"error: {args.run_dir}: no finished trials under it; give a `modularrsi run` directory")
    memory = TrajectoryMemory(args.out / "memory.sqlite")
    records = [r for run in runs for r in memory.record_run(run, "rehearse", 0, "gen_0")]
    if args.tasks:
        records = [r for r in records if r.task in set(args.tasks)]
    buckets = route(records, memory, config.buckets)
    tasks = {r.task for r in records}
    task_dirs = {t: next((ROOT / p / t for p in [*config.tasks, *config.eval_tasks] if (ROOT / p / t).is_dir()), None)
                 for t in tasks}
    instructions = {t: (d / "instruction.md").read_text() if d else "" for t, d in task_dirs.items()}
    evidence = [e for e in epoch_evidence(buckets, records, memory, instructions, contrast=config.contrast)
                if args.tasks or e.bucket == "mixed"]
    print(f"{len(records)} attempts of {len(tasks)} tasks; analysed: {', '.join(e.task for e in evidence) or 'none'}")
    cache = args.out / "cache.sqlite"
    analyst = LLMAnalyst(make_model(config.role("analyst"), cache_path=cache), thresholds=config.analyst)
    for lens in args.lenses:
        started = time.monotonic()
        for finding in await analyse_all(evidence, lens, analyst):
            verdict = (f"culprit {finding.locked_module}, {finding.mechanism}" if finding.is_culprit else
                       f"not a culprit{f' (points at {finding.locked_module})' if finding.locked_module else ''}")
            why = finding.dropped or finding.parse_error or finding.divergence
            print(f"analyst  {lens:<11} {finding.task}: {verdict} - {why} [{time.monotonic() - started:.0f} s]")
    reviewer = ReviewGate(make_model(config.role("reviewer"), cache_path=cache), sorted(tasks))
    editor = SimEditor(seed=0, bad_rate=0.0)
    for tag in args.review:
        entry = CATALOGUE[tag]
        with tempfile.TemporaryDirectory(dir=args.out) as scratch:
            made = editor.propose(entry.module, tag, BASELINE, Path(scratch) / tag)
            started = time.monotonic()
            verdict = await reviewer.check(made.to_proposal(entry.summary, []))
        print(f"reviewer {tag}: {'approved' if verdict.passed else 'rejected'} - {verdict.reason} "
              f"[{time.monotonic() - started:.0f} s]")
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("run_dir", type=Path)
    parser.add_argument("--config", type=Path, default=ROOT / "bench" / "small_tier" / "evolve-catalogue.yaml")
    parser.add_argument("--tasks", nargs="*", default=[], help="these tasks (default: every mixed task)")
    parser.add_argument("--lenses", nargs="*", default=["tool_use", "completion"])
    parser.add_argument("--review", nargs="*", default=["json_repair", "lenient_parse"],
                        help="catalogue mechanisms the reviewer judges on gen_0")
    parser.add_argument("--out", type=Path, default=ROOT / "runs" / "small-tier" / "rehearse")
    args = parser.parse_args()
    args.run_dir, args.config, args.out = args.run_dir.resolve(), args.config.resolve(), args.out.resolve()
    os.chdir(ROOT)  # the config's paths are the repository's, as bench/small_tier/run.sh reads them
    return asyncio.run(rehearse(args))


if __name__ == "__main__":
    sys.exit(main())
