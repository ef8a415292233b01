"""Credit assignment against hidden ground truth: does evolution promote the changes a world needs?

For each of N ``sim`` worlds (``sim:world-<seed>``, each with its own hidden set of active, fixable
failure modes) this runs ``modularrsi evolve`` once per method — lanes (the method), ``--joint``,
``--monolithic``, ``--no-contrast`` — on a few pool tasks, with the frozen library evaluated against
gen_0 on a few held-out tasks, and scores what each promoted:

- a promoted function is *right* when it addresses a mode active in that world (:mod:`credit_truth`, the
  ground truth only the bench reads; committed rows are judged again when read), a *false promotion*
  otherwise;
- precision = right / promoted; recall = active fixable modes addressed by some promoted function /
  active fixable modes;
- each world's evolution runs at its own seed (the world's), so the editor's draws and the attempt seeds
  differ between worlds: eight replications, not one repeated eight times;
- held-out gain = frozen − gen_0 Acc (paired, same seeds); best reachable gain = the same for gen_0 plus
  one mechanism per active mode (:data:`credit_truth.BEST`), evaluated on the same tasks and seeds;
- trials spent = Harbor trials of the evolution (held-out evaluation excluded);
- separation: each method against lanes, world by world (:mod:`credit_stats`: a sign test over worlds, and
  when it does not separate them, about how many worlds it would take);
- load timeouts = proposals the static gate refused because loading the generation took longer than its
  limit — a sign the machine was overloaded, not a verdict on the change (run fewer at once).

Each finished run's score (and each world's best reachable gain) is also written to ``--results``
(default ``bench/results/credit/``), under a key of the bench's settings and the package's source: commit
those files and the bench goes on from them on another machine, running only what is missing; a code
change starts a new key, so no score is reused across code (``--score-only --key K`` prints key K's).

The evolution reads no ground truth: the world reaches only the agent model, through its name. Numbers
from ``sim`` say the machinery works, not what a real model would gain.

    python bench/credit.py [--worlds 8] [--tasks 3] [--heldout 3] [-k 2] [--evidence 8] [--alpha A] [--parallel 2]
        [--epochs 1] [--directions 1] [--candidates 1] [--results bench/results/credit]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import random
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import yaml
from credit_stats import separation
from credit_truth import BEST, is_right, judged

import modularrsi
from modularrsi.evolve.seeds import derived_seed
from modularrsi.harness import BASELINE
from modularrsi.offline.catalogue import CATALOGUE
from modularrsi.offline.sim import SimWorld
from modularrsi.offline.sim_editor import SimEditor

REPO = Path(__file__).resolve().parents[1]
#: The package the runs import (children inherit this environment): the key hashes it, not the checkout's src/.
PACKAGE = Path(modularrsi.__file__).resolve().parent
METHODS = {"lanes": [], "joint": ["--joint"], "monolithic": ["--monolithic"], "no-contrast": ["--no-contrast"]}
ENV = {**os.environ, "HARBOR_TELEMETRY": "0", "LITELLM_LOCAL_MODEL_COST_MAP": "True", "COLUMNS": "200"}


def pick_worlds(n: int) -> list[SimWorld]:
    """The first ``n`` drawn worlds (seeds 1, 2, …) whose active fixable sets all differ."""
    worlds, seen, seed = [], set(), 1
    while len(worlds) < n:
        world = SimWorld.drawn(seed)
        if tuple(world.active_fixable) not in seen:
            seen.add(tuple(world.active_fixable))
            worlds.append(world)
        seed += 1
    return worlds


def pick_tasks(root: Path, n: int, seed: int) -> list[Path]:
    tasks = sorted(p for p in root.iterdir() if (p / "task.toml").is_file())
    return sorted(random.Random(f"credit:{root.name}:{seed}").sample(tasks, n))


def cli(*args: str, log: Path) -> None:
    with log.open("w") as out:
        done = subprocess.run([sys.executable, "-m", "modularrsi.cli", *args], stdout=out, stderr=subprocess.STDOUT,
                              env=ENV, cwd=REPO)
    if done.returncode:
        raise RuntimeError(f"modularrsi {args[0]} failed (exit {done.returncode}); see {log}")


def evolve(world: SimWorld, method: str, tasks: list[Path], heldout: list[Path], k: int, n: int, out: Path,
           alpha: float | None = None, evidence: int = 8, candidates: int = 1, epochs: int = 1,
           directions: int = 1) -> Path:
    run = out / f"w{world.seed}-{method}"
    gates: dict = {"anchors": 1, "max_evidence_tasks": evidence, **({"execution": {"alpha": alpha}} if alpha else {})}
    config = {"tasks": [str(t) for t in tasks], "model": f"sim:world-{world.seed}", "epochs": epochs, "k": k,
              "concurrency": n, "seed": world.seed, "eval_tasks": [str(t) for t in heldout], "eval_k": k,
              "max_directions": directions, "editor": {"retries": 0, "candidates": candidates},
              "aggregate": {"min_support": 1}, "gates": gates}
    (out / f"{run.name}.yaml").write_text(yaml.safe_dump(config))
    if not (run / "eval" / "eval.json").is_file():
        fresh = ["--config", str(out / f"{run.name}.yaml"), "--out", str(run), *METHODS[method]]
        cli("evolve", *(["--resume", str(run)] if run.exists() else fresh), log=out / f"{run.name}.log")
    return run


def best_generation(world: SimWorld, out: Path) -> Path:
    """gen_0 plus one mechanism per active fixable mode, written by the sim editor (never a bad patch)."""
    parent, editor = BASELINE, SimEditor(bad_rate=0.0)
    for i, tag in enumerate(dict.fromkeys(BEST[m] for m in world.active_fixable)):
        target = out / f"best-w{world.seed}-{i}"
        if not target.exists():
            editor.propose(CATALOGUE[tag].module, tag, parent, target)
        parent = target
    return parent


def best_gain(world: SimWorld, heldout: list[Path], k: int, n: int, out: Path) -> float:
    where = out / f"w{world.seed}-best-eval"
    if not (where / "eval.json").is_file():
        cli("eval", "--generation", str(best_generation(world, out)), "--tasks", *map(str, heldout), "-k", str(k),
            "-n", str(n), "--model", f"sim:world-{world.seed}", "--seed", str(derived_seed(world.seed, "eval")),
            "--out", str(where), log=out / f"w{world.seed}-best.log")
    return acc_gain(where / "eval.json")


def acc_gain(path: Path) -> float:
    deltas = json.loads(path.read_text())["deltas"]
    return next(d["diff"] for d in deltas if d["metric"] == "acc")


def promoted(run: Path) -> list[str]:
    """Functions active in the frozen library that gen_0 does not have."""
    base = json.loads((BASELINE / "manifest.json").read_text())["active"]
    frozen = json.loads((run / "frozen" / "manifest.json").read_text())["active"]
    return sorted(name for module, names in frozen.items() for name in names if name not in base.get(module, []))


def trials(run: Path) -> int:
    return sum(1 for p in run.rglob("result.json") if p.parent.parent.name == "trials" and "eval" not in p.parts)


def timeouts(run: Path) -> int:
    """Proposals the static gate refused because loading took too long (machine load, not the change)."""
    lines = (run / "history.jsonl").read_text().splitlines() if (run / "history.jsonl").is_file() else []
    return sum("did not finish within" in json.loads(line).get("reason", "") for line in lines if line.strip())


def function_of(record: dict) -> str:
    """The catalogue function a proposal (a ``history.jsonl`` record) wrote in its module, else its first file."""
    written = [Path(f).stem for f in record.get("files", []) if f.startswith(f"modules/{record['module']}/")]
    return next((w for w in written if w in CATALOGUE), written[0] if written else "-")


def proposals(run: Path, active: set[str]) -> list[dict]:
    """Every change the editor proposed: the catalogue function it wrote, whether that function undoes an
    active mode (right), and how the gates ended it (so a miss reads as the editor's or the gate's)."""
    rows = []
    history = run / "history.jsonl"
    for line in history.read_text().splitlines() if history.is_file() else []:
        record = json.loads(line)
        if record["lane"] == "integration":
            continue
        name = function_of(record)
        rows.append({"function": name, "right": is_right(name, active),
                     "outcome": record["outcome"], "rejected_by": record.get("rejected_by")})
    return rows


def score(run: Path, world: SimWorld, best: float) -> dict:
    return judged({"world": world.seed, "active": sorted(world.active_fixable), "promoted": promoted(run),
                   "gain": acc_gain(run / "eval" / "eval.json"), "best_gain": best, "trials": trials(run),
                   "load_timeouts": timeouts(run), "proposals": proposals(run, set(world.active_fixable))})


def table(rows: list[dict]) -> str:
    lines = ["| method | worlds | promoted | precision | recall | false promotions | held-out gain | "
             "best reachable gain | trials per run | load timeouts |", "|---|---|---|---|---|---|---|---|---|---|"]
    for method in METHODS:
        mine = [r for r in rows if r["method"] == method]
        if not mine:
            continue
        promoted_n = sum(len(r["promoted"]) for r in mine)
        precision = f"{sum(r['right'] for r in mine) / promoted_n:.2f}" if promoted_n else "—"
        mean = {key: sum(r[key] for r in mine) / len(mine) for key in ("recall", "gain", "best_gain", "trials")}
        lines.append(f"| {method} | {len(mine)} | {promoted_n} | {precision} | {mean['recall']:.2f} | "
                     f"{sum(r['false'] for r in mine)} | {mean['gain']:+.3f} | {mean['best_gain']:+.3f} | "
                     f"{mean['trials']:.0f} | {sum(r['load_timeouts'] for r in mine)} |")
    return "\n".join(lines)


def proposal_table(rows: list[dict]) -> str:
    """Per method: what the editor proposed against the ground truth, and where each proposal ended."""
    lines = ["| method | proposals | right (undo an active mode) | promoted | rejected: static | review | execution "
             "| right but rejected by execution |", "|---|---|---|---|---|---|---|---|"]
    for method in METHODS:
        mine = [p for r in rows if r["method"] == method for p in r["proposals"]]
        if not any(r["method"] == method for r in rows):
            continue
        by = {gate: sum(p["rejected_by"] == gate for p in mine) for gate in ("static", "review", "execution")}
        lines.append(f"| {method} | {len(mine)} | {sum(p['right'] for p in mine)} | "
                     f"{sum(p['outcome'] == 'promoted' for p in mine)} | {by['static']} | {by['review']} | "
                     f"{by['execution']} | {sum(p['right'] and p['rejected_by'] == 'execution' for p in mine)} |")
    return "\n".join(lines)


def settings_of(args: argparse.Namespace) -> dict:
    """The settings a score depends on (worlds are the first N drawn, so any N shares them)."""
    return {name: getattr(args, name) for name in ("tasks", "heldout", "k", "alpha", "evidence", "candidates",
                                                   "epochs", "directions")}


def results_key(args: argparse.Namespace) -> str:
    """The settings a score depends on, and the package's source: one directory of committed scores each."""
    digest = hashlib.sha256(json.dumps(settings_of(args), sort_keys=True).encode())
    for path in sorted(PACKAGE.rglob("*.py")):  # the source the runs import, named as in a checkout
        name = "src/modularrsi/" + path.relative_to(PACKAGE).as_posix()
        digest.update(name.encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()[:16]


class Scores:
    """Committed score rows: ``<results>/<key>/settings.json`` and one JSON file per finished run or world."""

    def __init__(self, root: Path, key: str, settings: dict):
        self.dir = root / key
        self.dir.mkdir(parents=True, exist_ok=True)
        if not (self.dir / "settings.json").is_file():
            self.put("settings", settings)

    def get(self, name: str) -> dict | float | None:
        path = self.dir / f"{name}.json"
        return json.loads(path.read_text()) if path.is_file() else None

    def put(self, name: str, value: dict | float) -> None:
        path = self.dir / f"{name}.json"
        tmp = path.with_suffix(".tmp")
        tmp.write_text(json.dumps(value, indent=2, sort_keys=True) + "\n")
        tmp.replace(path)


def committed_key(args: argparse.Namespace) -> str:
    """``--key``: committed scores made from another source, read only; their settings must be these."""
    kept = args.results / args.key / "settings.json"
    committed = json.loads(kept.read_text()) if kept.is_file() else {}
    wrong = ", ".join(f"{k}={v!r} (committed {committed[k]!r})" for k, v in settings_of(args).items()
                      if k in committed and committed[k] != v)
    why = ("--key reads committed scores only: add --score-only" if not args.score_only else
           "no such committed scores" if not committed else wrong and f"made with other settings: {wrong}")
    return args.key if not why else sys.exit(f"error: {kept}: {why}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--worlds", type=int, default=8)
    ap.add_argument("--tasks", type=int, default=3, help="pool tasks to evolve on (a seeded choice)")
    ap.add_argument("--heldout", type=int, default=3, help="held-out tasks to evaluate on (a seeded choice)")
    ap.add_argument("-k", type=int, default=2)
    ap.add_argument("-n", type=int, default=6, help="attempts at once per run")
    ap.add_argument("--parallel", type=int, default=2, help="runs at once")
    ap.add_argument("--methods", nargs="+", default=list(METHODS), choices=list(METHODS))
    ap.add_argument("--out", type=Path, default=REPO / "runs" / "bench-credit")
    ap.add_argument("--alpha", type=float, default=None, help="the execution gate's test level (default: its own)")
    ap.add_argument("--evidence", type=int, default=8, help="most evidence tasks the execution gate runs per "
                    "proposal; a one-sided test at level alpha needs at least log2(1/alpha) improved tasks")
    ap.add_argument("--candidates", type=int, default=1, help="racing: candidate mechanisms per direction")
    ap.add_argument("--epochs", type=int, default=1, help="epochs per lane")
    ap.add_argument("--directions", type=int, default=1, help="directions tried per lane and epoch")
    ap.add_argument("--results", type=Path, default=REPO / "bench" / "results" / "credit",
                    help="committed scores: finished runs found here are not run again")
    ap.add_argument("--score-only", action="store_true", help="score the finished runs under --out; run nothing")
    ap.add_argument("--key", help="with --score-only: print the committed scores of this key (another source's)")
    args = ap.parse_args()
    start = time.monotonic()
    args.out.mkdir(parents=True, exist_ok=True)
    worlds = pick_worlds(args.worlds)
    tasks, heldout = pick_tasks(REPO / "tasks" / "pool", args.tasks, 0), pick_tasks(REPO / "tasks" / "heldout",
                                                                                  args.heldout, 0)
    print(f"evolution tasks: {', '.join(t.name for t in tasks)}; held-out: {', '.join(t.name for t in heldout)}")
    key = committed_key(args) if args.key else results_key(args)
    scores = Scores(args.results, key, {"key": key, **settings_of(args), "evolution_tasks": [t.name for t in tasks],
                                        "heldout_tasks": [t.name for t in heldout]})

    def one(job: tuple[SimWorld, str]) -> dict | None:
        world, method = job
        run = args.out / f"w{world.seed}-{method}"
        kept = scores.get(run.name)
        if isinstance(kept, dict):
            return judged(kept)  # judged by the ground truth as it stands, not as it stood when the run ended
        if args.score_only and (best[world.seed] is None or not (run / "eval" / "eval.json").is_file()):
            return None
        try:
            run = evolve(world, method, tasks, heldout, args.k, args.n, args.out, args.alpha, args.evidence,
                         args.candidates, args.epochs, args.directions)
        except RuntimeError as exc:  # a run that failed (e.g. the machine too loaded to load a library)
            print(f"world {world.seed} {method}: {exc}; left out of the table", flush=True)
            return None
        row = {"method": method, **score(run, world, best[world.seed])}
        scores.put(run.name, row)
        return row

    def best_of(world: SimWorld) -> float | None:
        kept = scores.get(f"w{world.seed}-best")
        if isinstance(kept, (int, float)):
            return float(kept)
        if args.score_only and not (args.out / f"w{world.seed}-best-eval" / "eval.json").is_file():
            return None
        gain = best_gain(world, heldout, args.k, args.n, args.out)
        scores.put(f"w{world.seed}-best", gain)
        return gain

    with ThreadPoolExecutor(args.parallel) as pool:
        best = dict(zip([w.seed for w in worlds], pool.map(best_of, worlds), strict=True))
        rows = [r for r in pool.map(one, [(w, m) for w in worlds for m in args.methods]) if r is not None]
    (args.out / "credit.json").write_text(json.dumps(rows, indent=2) + "\n")
    for r in rows:
        print(f"world {r['world']} {r['method']:<11} active {','.join(r['active'])} | promoted "
              f"{','.join(r['promoted']) or '-'} | proposed "
              f"{','.join(p['function'] + ('*' if p['right'] else '') for p in r['proposals']) or '-'} | "
              f"gain {r['gain']:+.3f} (best {r['best_gain']:+.3f}) | "
              f"{r['trials']} trials")
    print("\n" + table(rows) + "\n")
    print(proposal_table(rows) + "\n")
    print(separation(rows, args.methods) + "\n")
    print(f"sim worlds (numbers show the machinery works, not what a real model would gain); "
          f"{time.monotonic() - start:.0f} s")


if __name__ == "__main__":
    main()
