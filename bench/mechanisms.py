"""Does a model respond to each catalogue mechanism? gen_0 vs gen_0 + one mechanism, paired seeds.

For every mechanism of ``modularrsi.offline.catalogue`` (right, inert and harmful alike; never a deliberately
bad patch) this builds gen_0 + that mechanism with the
sim editor, runs ``modularrsi run --tasks POOL -k K --seed S --generation DIR`` (model ``sim``), and
prints Acc / Pass@k / Pass^k / mean steps per variant with the deltas against gen_0 run with the same
seed (so attempt i of task t has the same sim seed in every variant: the comparison is paired), the
attempt flips (fail→pass / pass→fail), the tasks whose pass rate rose / fell with an exact two-sided sign
test over tasks, and a few signals that show
whether the mechanism acted at all. gen_0 is run first and again last with the same seed: the sim's
replies depend on what the terminal shows when it is read (timing, hence machine load), so the repeat
gives the noise floor of a paired difference. Numbers from ``sim`` say the machinery works, not what a real model
would gain.

With ``--config FILE`` (a ``run`` config naming a real model, e.g. ``bench/small_tier/agent.yaml``) the
same table is the real ground truth of what helps that model: every variant replays gen_0's response
cache (``replay_cache``: common random numbers, docs/evolve.md), so an attempt asks the model only from
the first request that differs from its paired gen_0 attempt, and a mechanism that changes nothing
changes no outcome. The repeat of gen_0 is then off unless ``--repeat`` is given (a real model's repeat
costs a whole run). ``--manifest`` runs the manifest's train split of ``--tasks``. ``--gen0-from RUN`` takes
a finished gen_0 run of the same tasks - an evolution's epoch sample (``samples/<gen_0>-s<seed>``) - as the
gen_0 side (copied in; its seed and K are used), so the ground truth is measured on the very draws the
evolution saw and gen_0 is not paid for twice.

    python bench/mechanisms.py [--tasks tasks/pool] [-k 3] [-n 8] [--seed 0] [--only trim_listing ...] [--out DIR]
    python bench/mechanisms.py --config bench/small_tier/agent.yaml --tasks tasks/small/pool \
        --manifest bench/small_tier/results/pool-manifest.json -k 3 -n 4 --env local \
        --only json_repair loop_guard evidence_check --out DIR --json truth.json --text truth.txt

``--generation NAME=DIR`` benches an evolved library as one more variant, before the catalogue's - an
evolution arm's frozen library (``runs/.../frozen``), whose functions are the model's own and so have no
catalogue row: its JSON row names the functions that differ from gen_0 with their content hashes, which is
how ``bench/small_tier/summary.py`` finds the ground truth of a promoted function it did not write.

``--json``/``--text`` are rewritten after every variant, listing those not run yet: a bench stopped part-way
keeps what it measured, and the same command goes on from there.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, replace
from pathlib import Path

import yaml

from modularrsi.evolve.gates.stats import task_sign_test_p
from modularrsi.harness import BASELINE
from modularrsi.harness.library import GenerationError, load_generation
from modularrsi.models.settings import is_sim
from modularrsi.offline.catalogue import CATALOGUE
from modularrsi.offline.sim_editor import SimEditor
from modularrsi.rollouts.runner import trials_busy_seconds
from modularrsi.util.files import write_text
from modularrsi.util.runcopy import copy_run

REPO = Path(__file__).resolve().parents[1]


@dataclass
class Setup:
    """What every variant's run shares: tasks, attempts, seed, and (for a real model) its run config."""

    tasks: list[Path]
    k: int
    n: int
    seed: int
    config: Path | None = None
    manifest: Path | None = None
    env: str | None = None

    def model(self) -> str:
        data = yaml.safe_load(self.config.read_text()) if self.config else {}
        agent = (data.get("roles") or {}).get("agent") or {}
        return agent.get("model") or data.get("model") or "sim"


def run(generation: Path, out: Path, setup: Setup, replay: Path | None = None) -> dict:
    """One variant's run; an interrupted one (its directory there, no results yet) is resumed, not redone.
    ``replay``: the paired gen_0 run's response cache (a real model's common random numbers)."""
    fresh = ["--tasks", *map(str, setup.tasks), "-k", str(setup.k), "-n", str(setup.n), "--seed", str(setup.seed),
             "--generation", str(generation), "--out", str(out)]
    fresh += ["--manifest", str(setup.manifest)] if setup.manifest else []
    fresh += ["--env", setup.env] if setup.env else []
    if setup.config:
        settings = yaml.safe_load(setup.config.read_text()) or {}
        if replay is not None:
            settings["replay_cache"] = str(replay)
        out.parent.mkdir(parents=True, exist_ok=True)
        variant_config = out.with_suffix(".yaml")
        variant_config.write_text(yaml.safe_dump(settings, sort_keys=False))
        fresh += ["--config", str(variant_config)]
    cmd = [sys.executable, "-m", "modularrsi.cli", "run", *(["--resume", str(out)] if out.exists() else fresh)]
    env = {"LOCAL_MODEL_KEY": "local", **os.environ, "HARBOR_TELEMETRY": "0", "LITELLM_LOCAL_MODEL_COST_MAP": "True"}
    done = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=REPO)
    if done.returncode != 0:
        raise SystemExit(f"run failed for {generation}:\n{done.stderr[-2000:]}")
    return json.loads((out / "results.json").read_text())


def outcomes(results: dict) -> dict[tuple[str, int], bool]:
    return {(a["task"], a["attempt"]): (a["reward"] or 0) >= 1.0 for a in results["attempts"]}


def task_flips(base: dict[tuple[str, int], bool], variant: dict[tuple[str, int], bool]) -> tuple[int, int]:
    """Tasks whose pass rate rose / fell against gen_0 over the same attempt seeds (the unit of evidence:
    attempts of one task share its difficulty, so attempt flips overstate what a few tasks show)."""
    diff: dict[str, int] = {}
    for (task, attempt), passed in base.items():
        diff[task] = diff.get(task, 0) + int(variant.get((task, attempt), False)) - int(passed)
    return sum(d > 0 for d in diff.values()), sum(d < 0 for d in diff.values())


def signals(run_dir: Path) -> dict[str, float]:
    """Per attempt: interventions, completion checks, compactions, parse errors, repairs, observation bytes."""
    counts = {"interv": 0, "checks": 0, "compact": 0, "parse_err": 0, "repaired": 0}
    obs_bytes, obs_n, attempts = 0, 0, 0
    for path in run_dir.glob("trials/*/agent/trajectory.json"):
        attempts += 1
        episode = json.loads((path.parent / "episode.json").read_text())
        counts["compact"] += episode.get("compactions", 0)
        counts["parse_err"] += episode.get("parse_errors", 0)
        for step in json.loads(path.read_text())["steps"]:
            purpose = (step.get("extra") or {}).get("purpose") or ""
            counts["interv"] += "intervention" in purpose
            counts["checks"] += purpose == "completion_check"
            for result in (step.get("observation") or {}).get("results", []):
                text = result.get("content") or ""
                counts["repaired"] += "AUTO-REPAIRED" in text
                if purpose.startswith("observation"):
                    obs_bytes, obs_n = obs_bytes + len(text.encode()), obs_n + 1
    per = {name: value / max(1, attempts) for name, value in counts.items()}
    per["obs_kb"] = obs_bytes / max(1, obs_n) / 1024
    return per


def table(rows: list[dict], base: dict) -> str:
    head = ("| variant            |   Acc | Pass@k | Pass^k | steps |   ΔAcc | ΔPass@k | ΔPass^k | Δsteps "
            "| attempt flips +/- | tasks +/- | task sign p |")
    lines = [head, "|" + "|".join("-" * (len(c)) for c in head.split("|")[1:-1]) + "|"]
    for row in rows:
        o, b = row["overall"], base["overall"]
        d = {m: o[m] - b[m] for m in ("acc", "pass_at_k", "pass_hat_k", "mean_steps")}
        lines.append(f"| {row['name']:<18} | {o['acc']:.3f} | {o['pass_at_k']:6.3f} | {o['pass_hat_k']:6.3f} "
                     f"| {o['mean_steps']:5.2f} | {d['acc']:+.3f} | {d['pass_at_k']:+7.3f} | {d['pass_hat_k']:+7.3f} "
                     f"| {d['mean_steps']:+6.2f} | {row['wins']:>8} / {row['losses']:<8}| {row['tasks_up']:>4} / "
                     f"{row['tasks_down']:<4}| {row['p']:11.3f} |")
    return "\n".join(lines)


def signal_table(rows: list[dict]) -> str:
    lines = ["| variant            | interventions | completion checks | compactions | parse errors | repaired "
             "| obs KB |", "|--------------------|---------------|-------------------|-------------|--------------|"
             "----------|--------|"]
    for row in rows:
        s = row["signals"]
        lines.append(f"| {row['name']:<18} | {s['interv']:13.2f} | {s['checks']:17.2f} | {s['compact']:11.2f} "
                     f"| {s['parse_err']:12.2f} | {s['repaired']:8.2f} | {s['obs_kb']:6.2f} |")
    return "\n".join(lines) + "\n(per attempt; obs KB = mean size of an observation message)"


def changed_functions(generation: Path) -> dict[str, str]:
    """The functions of ``generation`` that gen_0 does not have, as ``module/name`` -> content hash."""
    try:
        library, base = load_generation(generation), load_generation(BASELINE)
    except GenerationError as exc:
        raise SystemExit(f"error: --generation: {exc}") from None
    return {key: fn.sha256 for key, fn in sorted(library.functions.items())
            if key not in base.functions or base.functions[key].sha256 != fn.sha256}


def run_name(variant: str) -> str:
    """The run directory of a variant (names that differ only in punctuation share one, so they must not meet)."""
    return "run_" + re.sub(r"\W+", "_", variant).strip("_")


def parse_generations(specs: list[str]) -> list[tuple[str, Path]]:
    """``--generation NAME=DIR`` values, checked: a name no catalogue tag has, a generation directory."""
    named = []
    for spec in specs:
        name, _, where = spec.partition("=")
        if not name or not where:
            raise SystemExit(f"error: --generation {spec}: expected NAME=DIR (e.g. llm-context-2=runs/.../frozen)")
        taken = {run_name(n) for n in [*CATALOGUE, "gen_0", *(n for n, _ in named)]}
        if name.startswith("gen_0") or run_name(name) in taken:
            raise SystemExit(f"error: --generation {spec}: the name {name} is taken (a catalogue tag, gen_0 or "
                             "another --generation): choose another")
        if not (Path(where) / "manifest.json").is_file():
            raise SystemExit(f"error: --generation {spec}: {where} holds no manifest.json (not a generation "
                             "directory; an arm's library is its run's frozen/)")
        named.append((name, Path(where).resolve()))  # the runs start in the repository, not where this was
    return named


def ground_truth(rows: list[dict], setup: Setup, model: str, replayed: bool, pending: list[str],
                 own: dict[str, dict[str, str]] | None = None) -> dict:
    """The table as data (``--json``): what ``bench/small_tier/summary.py`` judges promoted changes by.
    ``pending``: the variants not run yet (a bench stopped part-way still states what it has measured);
    ``own``: per ``--generation`` variant, its functions that differ from gen_0 (``changed_functions``)."""
    keep = ("name", "overall", "wins", "losses", "tasks_up", "tasks_down", "p")
    own = own or {}
    return {"model": model, "simulated": is_sim(model), "replayed": replayed,
            "tasks": rows[0]["overall"]["tasks"], "k": setup.k, "seed": setup.seed, "pending": pending,
            "rows": [{key: row[key] for key in keep} | {"delta_acc": row["overall"]["acc"] - rows[0]["overall"]["acc"]}
                     | ({"functions": own[row["name"]]} if row["name"] in own else {}) for row in rows]}


def compare(rows: list[dict]) -> None:
    """Each row against gen_0 (the first): attempt flips, task flips and the sign test over tasks."""
    base = rows[0]
    for row in rows:
        if {t for t, _ in row["outcomes"]} != {t for t, _ in base["outcomes"]}:
            raise SystemExit(f"error: {row['name']} ran other tasks than gen_0 (--gen0-from a run of other tasks?)")
        pairs = [(base["outcomes"][key], row["outcomes"].get(key, False)) for key in base["outcomes"]]
        row["wins"] = sum(1 for b, v in pairs if v and not b)
        row["losses"] = sum(1 for b, v in pairs if b and not v)
        row["tasks_up"], row["tasks_down"] = task_flips(base["outcomes"], row["outcomes"])
        row["p"] = task_sign_test_p(row["tasks_up"], row["tasks_down"])


def report(rows: list[dict], setup: Setup, model: str, replayed: bool, pending: list[str], seconds: float,
           root: Path) -> str:
    o = rows[0]["overall"]
    paired = " (variants replay gen_0's response cache: common random numbers)" if replayed else ""
    label = ("sim model (simulated: these numbers test the machinery, not a real model)" if is_sim(model) else
             f"model {model}{paired}")
    waiting = f"\nnot run yet (run the same command again to go on): {', '.join(pending)}\n" if pending else ""
    return (f"gen_0 vs gen_0 + one catalogue mechanism or evolved library; {label}; {o['tasks']} tasks x "
            f"k={setup.k}, run seed {setup.seed} (paired attempt seeds); {seconds:.0f} s with the variants' trials "
            "running\n"
            f"{waiting}\n{table(rows, rows[0])}\n\n{signal_table(rows)}\n\nrun directories: {root}")


def adopt_gen0(run: Path, root: Path, setup: Setup) -> Setup:
    """``--gen0-from``: an existing gen_0 run (e.g. an evolution's epoch sample) becomes this bench's gen_0
    side, copied once; its run seed and K become the variants' (same attempt seeds, so they replay it)."""
    if not (run / "results.json").is_file():
        raise SystemExit(f"error: --gen0-from {run}: no finished run there (no results.json)")
    base = root / "run_gen_0"
    if not base.exists():
        copy_run(run, base)
    recorded = yaml.safe_load((base / "config.yaml").read_text())
    return replace(setup, seed=int(recorded["seed"]), k=int(recorded["k"]))


def main(setup: Setup, only: list[str], out: Path | None, repeat: bool | None, as_json: Path | None = None,
         gen0_from: Path | None = None, as_text: Path | None = None,
         generations: list[tuple[str, Path]] | None = None) -> None:
    root = out or Path(tempfile.mkdtemp(prefix="bench-mechanisms-"))
    root.mkdir(parents=True, exist_ok=True)
    if gen0_from is not None:
        setup = adopt_gen0(gen0_from, root, setup)
    model = setup.model()
    simulated = is_sim(model)
    editor = SimEditor(seed=setup.seed, bad_rate=0.0)
    unknown = [tag for tag in only if tag not in CATALOGUE]
    if unknown:
        raise SystemExit(f"error: --only {' '.join(unknown)}: not a catalogue tag; the tags: {' '.join(CATALOGUE)}")
    variants = [("gen_0", BASELINE), *(generations or [])]  # an arm's own library first: it is what is judged
    own = {name: changed_functions(where) for name, where in generations or []}
    for tag in only or list(CATALOGUE):  # in the order given: a long real-model bench runs the first ones first
        entry, staging = CATALOGUE[tag], root / f"gen_{tag}"
        if not (staging / "manifest.json").is_file():
            editor.propose(entry.module, tag, BASELINE, staging, force="good")
        variants.append((tag, staging))
    if simulated if repeat is None else repeat:
        variants.append(("gen_0 (repeat)", BASELINE))  # last: also shows drift in machine load over the bench
    replay = root / "run_gen_0" / "cache.sqlite" if setup.config and not simulated else None
    out_of = {name: root / run_name(name) for name, _ in variants}
    measured: dict[str, dict] = {}  # name -> row; variants finished here before (this --out) are read, not run

    def measure(name: str, results: dict) -> None:
        measured[name] = {"name": name, "overall": results["overall"], "outcomes": outcomes(results),
                          "signals": signals(out_of[name]),
                          "wall_s": trials_busy_seconds(out_of[name])}  # every session's, not the last one's

    def write() -> str:
        """The report of every variant measured so far, in the bench's order (a bench stopped part-way keeps it)."""
        if "gen_0" not in measured:  # every row is read against gen_0's
            return ""
        rows = [measured[name] for name, _ in variants if name in measured]
        pending = [name for name, _ in variants if name not in measured]
        compare(rows)
        text = report(rows, setup, model, replay is not None, pending, sum(row["wall_s"] for row in rows), root)
        if as_text:
            write_text(as_text, text + "\n")
        if as_json:
            write_text(as_json, json.dumps(ground_truth(rows, setup, model, replay is not None, pending, own),
                                           indent=2) + "\n")
        return text

    for name, _ in variants:
        if (out_of[name] / "results.json").is_file():
            measure(name, json.loads((out_of[name] / "results.json").read_text()))
    text = write()
    for name, generation in variants:
        if name in measured:
            continue
        t0 = time.monotonic()
        paired = replay if name not in ("gen_0", "gen_0 (repeat)") else None
        measure(name, run(generation, out_of[name], setup, paired))
        print(f"  {name}: {time.monotonic() - t0:.0f} s", file=sys.stderr)
        text = write()
    print(text)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", type=Path, nargs="+", default=[REPO / "tasks" / "pool"])
    parser.add_argument("-k", type=int, default=3)
    parser.add_argument("-n", type=int, default=8, help="concurrent attempts")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--config", type=Path, help="run config of a real model (default: the sim model)")
    parser.add_argument("--manifest", type=Path, help="run the train split of this pool manifest")
    parser.add_argument("--env", help="environment of the trials (default: run's)")
    parser.add_argument("--repeat", action=argparse.BooleanOptionalAction, default=None,
                        help="run gen_0 again last (default: with sim only)")
    parser.add_argument("--only", nargs="*", default=[], help="catalogue tags to bench, in this order (default: all)")
    parser.add_argument("--out", type=Path, help="run directories here (default: a new temporary directory); "
                        "variants already finished there are read, not run again")
    parser.add_argument("--json", type=Path, help="also write the table as JSON here, after every variant (the "
                        "ground truth that bench/small_tier/summary.py reads; its 'pending' lists what is not run yet)")
    parser.add_argument("--text", type=Path, help="also write the printed tables here, after every variant")
    parser.add_argument("--generation", action="append", default=[], metavar="NAME=DIR",
                        help="also bench this library directory (e.g. an arm's frozen/) as variant NAME, first "
                        "(repeatable)")
    parser.add_argument("--gen0-from", type=Path, help="a finished gen_0 run of the same tasks (e.g. an evolution's "
                        "samples/<gen_0>-s<seed>): copied in as gen_0; its seed and K are used")
    args = parser.parse_args()
    main(Setup(args.tasks, args.k, args.n, args.seed, args.config, args.manifest, args.env), args.only, args.out,
         args.repeat, args.json, args.gen0_from, args.text, parse_generations(args.generation))
