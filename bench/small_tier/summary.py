"""The small tier's evolution arms side by side, judged against the real ground truth.

For each arm (an ``evolve`` run with the local model as the agent: the LLM editor, or the offline catalogue
editor) this reads the run directory and writes ``<results>/evolve-<arm>/arm.json``: what it proposed and
how each proposal ended, what it promoted, the frozen library against gen_0 on the held-out tier (and on
the held-out set selected again, ``<results>/evolve-<arm>/heldout-eval.json``, when ``run.sh heldout`` wrote
it), and what it cost (its own trials - not those a ``share_from`` run drew -, tokens, hours with trials
running). Then it renders every arm found under ``<results>`` as one markdown page (stdout and
``<results>/summary.md``), judging each promoted function by the ground truth (``bench/mechanisms.py --json``
on the same model and evolution set: does that mechanism help, do nothing or harm this model), so the
committed results re-render on a machine without the runs.

A promoted function is judged by its catalogue mechanism's row: **right** when more tasks rose than fell
and the sign test over tasks gives p <= ``--alpha``, **harmful** when more fell with p <= alpha, **inert**
otherwise; a function that is no catalogue mechanism (the model's own) is judged by the row of a library
benched with ``bench/mechanisms.py --generation`` that holds the very same function (same content hash,
e.g. the arm's frozen library), and without one says so - its effect is then the held-out row alone.
The arms evaluated on the re-selected held-out set form one family of tests, declared before their results
(``--family``): a gain there counts only when the sign test's p-value, Holm-adjusted over that family, is below
0.05; a member not evaluated yet counts at p = 1 (the worst case for the others, so a gain claimed early holds
whatever its result). A run that promoted nothing, or whose
held-out difference is not significant, says what stopped it; a held-out difference that is not significant
also says how many held-out tasks the sign test would need at the rates of tasks fixed and broken it saw.

    python bench/small_tier/summary.py --arm llm=runs/small-tier/evolve-llm \\
        --arm catalogue=runs/small-tier/evolve-catalogue [--mechanisms bench/small_tier/results/mechanisms.json]
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from pathlib import Path

import yaml
from pydantic import BaseModel, ValidationError

from modularrsi.evolve.aggregate import Aggregation
from modularrsi.evolve.evaluate import EvalResult
from modularrsi.evolve.gates.stats import holm, tasks_to_show
from modularrsi.evolve.history import Change, History
from modularrsi.evolve.layout import LaneLayout, RunLayout
from modularrsi.evolve.runfiles import read_model
from modularrsi.harness.manifest import GenerationManifest
from modularrsi.models.budget import BudgetFile
from modularrsi.offline.catalogue import CATALOGUE
from modularrsi.rollouts.runner import busy_seconds, read_finished
from modularrsi.util.files import write_text

HERE = Path(__file__).resolve().parent
TAG_OF = {mechanism.name: tag for tag, mechanism in CATALOGUE.items()}
CATALOGUE_EDITOR = "catalogue-editor"


def load[M: BaseModel](path: Path, model: type[M]) -> M:
    """``path`` read through its model; a ValueError naming the file and its first wrong field otherwise."""
    try:
        return read_model(path, model)
    except ValidationError as exc:
        first = exc.errors()[0]
        raise ValueError(f"{path}: {'.'.join(map(str, first['loc'])) or 'file'}: {first['msg']} "
                         f"({exc.error_count()} errors; is it a {model.__name__}?)") from None


def written_functions(change: Change) -> list[str]:
    """The function files a change wrote, as ``module/name``."""
    return [f.removeprefix("modules/").removesuffix(".py") for f in change.files if f.startswith("modules/")]


def function_hashes(layout: RunLayout, change: Change) -> dict[str, str]:
    """Content hashes of the functions a promoted change wrote, from its lane generation's manifest ({} when
    that generation is not there, e.g. results re-rendered without the run)."""
    generation = layout.lanes / change.lane / (change.promoted_as or "-")
    if not (generation / "manifest.json").is_file():
        return {}
    entries = GenerationManifest.read(generation).entries()  # a manifest that does not fit: one-line ValueError
    return {name: entries[name].sha256 for name in written_functions(change) if name in entries}


def judge(function: str, truth: dict | None, alpha: float, sha256: str | None = None) -> dict:
    """The ground truth's verdict on one promoted function (``module/name``, its content hash ``sha256``):
    by its catalogue mechanism's row, or else by a benched library's row holding that very function."""
    tag = TAG_OF.get(function.split("/")[-1])
    row = next((r for r in (truth or {}).get("rows", []) if r["name"] == tag), None) if tag else None
    if tag is None:
        row = next((r for r in (truth or {}).get("rows", [])
                    if sha256 is not None and (r.get("functions") or {}).get(function) == sha256), None)
        if row is None:
            return {"function": function, "tag": None, "verdict": "own mechanism (no ground-truth row)"}
        tag = f"own, benched as {row['name']}"
    if row is None:
        pending = truth is None or tag in truth.get("pending", [])
        return {"function": function, "tag": tag, "verdict": "not measured" if pending else "not in the ground truth"}
    up, down, p = row["tasks_up"], row["tasks_down"], row["p"]
    verdict = "right" if up > down and p <= alpha else "harmful" if down > up and p <= alpha else "inert"
    return {"function": function, "tag": tag, "verdict": verdict, "tasks_up": up, "tasks_down": down, "p": p,
            "delta_acc": row["delta_acc"]}


def busy_hours(run: Path) -> tuple[int, float]:
    """Trials finished (held-out evaluation included) and the hours in which at least one was running: the
    union of their intervals, so the idle time between resumed sessions is not counted. A run that shares
    another's draws (``share_from``) counts only its own: a trial copied in from the other run is that run's
    cost (the same trial there, started at the same instant)."""
    config = yaml.safe_load((run / "config.yaml").read_text()) if (run / "config.yaml").is_file() else {}
    other = Path(config["share_from"]) if (config or {}).get("share_from") else None
    if other is not None and not other.exists():
        other = run.parent / other.name  # named from where the run was started; the runs sit side by side

    def copied(path: Path, started) -> bool:
        theirs = other / path.relative_to(run) if other is not None else None
        return theirs is not None and theirs.is_file() and (t := read_finished(theirs.parent)) is not None \
            and t.started_at == started

    spans = [(r.started_at, r.finished_at) for path in run.rglob("trials/*/result.json")
             if (r := read_finished(path.parent)) and r.started_at and r.finished_at
             and not copied(path, r.started_at)]
    return len(spans), busy_seconds(spans) / 3600


def directions(layout: RunLayout) -> int:
    lanes = [LaneLayout(path) for path in sorted(layout.lanes.glob("*")) if path.is_dir()]
    return sum(len(load(epoch.directions, Aggregation).directions)
               for lane in lanes for epoch in lane.epochs() if epoch.directions.is_file())


def stopped_by(arm: dict) -> str | None:
    """Why a run shows no significant held-out gain; None when it does (on the re-selected set, by the p-value
    adjusted over the family of arms evaluated there, :func:`adjust_family`)."""
    held = arm.get("heldout_reselected") or arm.get("heldout")
    if arm["promoted"] and held and held.get("holm_p", held["sign_test_p"]) < 0.05 and held["delta_acc"] > 0:
        return None
    if not arm["directions"]:
        return "no direction: the analysis found no harness-caused failure shared by enough tasks"
    outcomes = arm["outcomes"]
    if not arm["promoted"] and outcomes.get("editor_failed", 0) == arm["proposals"]:
        return "editor failure: no proposal was finished"
    if not arm["promoted"]:
        gates = ", ".join(f"{gate} {n}" for gate, n in sorted(arm["rejected_by"].items()))
        return f"gate rejection: nothing promoted ({gates or 'no gate reached'})"
    if held is None:
        return "not evaluated yet: the frozen library has no held-out evaluation"
    pending = held.get("pending") or []
    family = (f" (Holm-adjusted over the family of {held['family']} arms on this set"
              + (f", {', '.join(pending)} not evaluated yet and counted at p = 1" if pending else "")
              + f": {held['holm_p']:.3g})" if held.get("family", 1) > 1 else "")
    return (f"no held-out effect: difference {held['delta_acc']:+.3f}, sign test over tasks "
            f"p = {held['sign_test_p']:.3g}{family}; {tasks_to_show(held['tasks'], held['fixed'], held['broken'])}")


def adjust_family(arms: dict[str, dict], declared: list[str] | tuple[str, ...] = ()) -> None:
    """The arms evaluated on the re-selected held-out set are one family of tests, fixed before their results
    (``declared``: the arms `run.sh heldout` evaluates): a gain counts there only when Holm's adjusted p-value is
    below 0.05, so testing more libraries on the one set does not raise the chance of a false claim. A declared
    arm without its row yet counts at p = 1, which can only raise the others' adjusted p-values: a verdict given
    before the family is complete stands whatever that arm shows. An arm evaluated there but not declared joins
    the family. Each evaluated row gets its ``holm_p``, the family's size and the members still ``pending``, and
    each arm its verdict again. Arms without that row are judged by their first evaluation alone."""
    measured = {name: arm["heldout_reselected"]["sign_test_p"] for name, arm in arms.items()
                if arm.get("heldout_reselected")}
    pending = sorted(set(declared) - set(measured))
    adjusted = holm(measured | dict.fromkeys(pending, 1.0))
    for name in measured:
        arms[name]["heldout_reselected"] |= {"holm_p": adjusted[name], "family": len(adjusted), "pending": pending}
        arms[name]["stopped_by"] = stopped_by(arms[name])


def heldout_row(path: Path) -> dict:
    """One held-out evaluation (an ``eval.json``) as the summary's row."""
    e = load(path, EvalResult)
    metrics = ("acc", "pass_at_k", "pass_hat_k", "mean_steps", "tokens")
    acc = e.delta("acc")
    return {"model": e.model, "simulated": e.simulated, "tasks": e.tasks, "k": e.k,
            "baseline": {m: getattr(e.baseline, m) for m in metrics},
            "candidate": {m: getattr(e.candidate, m) for m in metrics},
            "delta_acc": acc.diff, "delta_acc_ci95": acc.ci95, "sign_test_p": e.sign_test_p,
            "fixed": e.fixed, "broken": e.broken, "unchanged": e.unchanged}


def arm_summary(run: Path, reevaluation: Path | None = None) -> dict:
    """What one evolution run did, as data (``arm.json``). ``reevaluation``: the frozen library's evaluation on
    the held-out set as selected again after the run (``run.sh heldout``); when given, it is the held-out
    result that decides "what stopped it", and the run's own evaluation is kept beside it."""
    layout = RunLayout(run)
    try:
        changes = list(History(layout.history).changes.values())
    except ValidationError as exc:
        raise ValueError(f"{layout.history}: a line is not a Change: {exc.errors()[0]['msg']}") from None
    promoted = [c for c in changes if c.outcome == "promoted" and c.fate == "kept"]
    editors = sorted({c.editor for c in changes if c.editor})
    spent = BudgetFile.read(layout.budget).spent if layout.budget.is_file() else None
    trials, hours = busy_hours(run)
    arm = {"run": str(run), "editors": editors, "catalogue_editor": CATALOGUE_EDITOR in editors,
           "directions": directions(layout), "proposals": len(changes),
           "outcomes": dict(Counter(c.outcome for c in changes)),
           "rejected_by": dict(Counter(c.rejected_by for c in changes if c.rejected_by)),
           "promoted": [{"id": c.id, "module": c.module, "mechanism": c.mechanism, "editor": c.editor,
                         "functions": written_functions(c), "sha256": function_hashes(layout, c)}
                        for c in promoted],
           "cost": {"trials": trials, "hours": round(hours, 3), "tokens": spent and spent.tokens,
                    "calls": spent and spent.calls},
           "heldout": heldout_row(layout.eval_result) if layout.eval_result.is_file() else None,
           "heldout_reselected": heldout_row(reevaluation) if reevaluation and reevaluation.is_file() else None}
    arm["stopped_by"] = stopped_by(arm)
    return arm


def editor_label(arm: dict) -> str:
    if arm["catalogue_editor"]:
        return "catalogue editor (offline: the catalogue's functions, never the model's own edits)"
    return ", ".join(arm["editors"]) or "no editor called"


def render(arms: dict[str, dict], truth: dict | None, alpha: float, family: list[str] | tuple[str, ...] = ()) -> str:
    adjust_family(arms, family)
    lines = ["# The small tier: evolution arms against the ground truth", ""]
    models = sorted({h["model"] for arm in arms.values() for h in (arm["heldout"], arm.get("heldout_reselected")) if h})
    if models:
        lines += [f"Agent model: {', '.join(models)}. Held-out: the frozen library against gen_0, paired (same "
                  "seeds); gen_0 → frozen in each column; hours are those with trials running."
                  + (" A \"re-selected\" row is the same library on the held-out evaluation set selected again "
                     "(by gen_0's measured difficulty alone) after held-out tasks were added; that row decides "
                     "what stopped it, by its sign test's p-value Holm-adjusted over the family of arms declared "
                     "for that set" + (f" ({', '.join(family)})" if family else "") + "."
                     if any(arm.get("heldout_reselected") for arm in arms.values()) else ""), ""]
    if truth:
        lines.append(f"Ground truth: `bench/mechanisms.py`, model {truth['model']}"
                     f"{' (simulated)' if truth['simulated'] else ''}, {truth['tasks']} tasks x k={truth['k']}, "
                     f"a mechanism is right / harmful when tasks rose / fell with sign-test p <= {alpha}."
                     + (f" Not measured yet: {', '.join(truth['pending'])} (`bench/small_tier/run.sh mechanisms` "
                        "goes on)." if truth.get("pending") else ""))
    else:
        lines.append("Ground truth: not measured yet (`bench/small_tier/run.sh mechanisms`); promoted functions "
                     "are not judged.")
    lines += ["", "| arm | editor | directions | proposals | promoted | held-out ΔAcc [95 %] | fixed / broken "
              "| sign p | Pass@k | Pass^k | steps | held-out tokens | trials | hours | what stopped it |",
              "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    if not arms:
        lines.append("| - | no arm has run yet (`bench/small_tier/run.sh evolve`) |" + " |" * 13)
    for name, arm in arms.items():
        evaluations = [("", arm["heldout"])] + (
            [(" (re-selected held-out set)", arm["heldout_reselected"])] if arm.get("heldout_reselected") else [])
        for label, h in evaluations:
            held = ("not evaluated", "-", "-", "-", "-", "-", "-") if h is None else (
                f"{h['delta_acc']:+.3f} [{h['delta_acc_ci95'][0]:+.3f}, {h['delta_acc_ci95'][1]:+.3f}]",
                f"{h['fixed']} / {h['broken']}", f"{h['sign_test_p']:.3g}"
                + (f" (Holm {h['holm_p']:.3g})" if h.get("family", 1) > 1 else ""),
                f"{h['baseline']['pass_at_k']:.2f} → {h['candidate']['pass_at_k']:.2f}",
                f"{h['baseline']['pass_hat_k']:.2f} → {h['candidate']['pass_hat_k']:.2f}",
                f"{h['baseline']['mean_steps']:.2f} → {h['candidate']['mean_steps']:.2f}",
                f"{h['baseline']['tokens']:,} → {h['candidate']['tokens']:,}")
            cost = arm["cost"]
            last = label or not arm.get("heldout_reselected")  # the row whose held-out result is judged
            lines.append(f"| {name}{label} | {editor_label(arm)} | {arm['directions']} | {arm['proposals']} | "
                         f"{len(arm['promoted'])} | " + " | ".join(held) + f" | {cost['trials']} | "
                         f"{cost['hours']:.2f} | "
                         + (f"{stopped_by(arm) or 'significant held-out gain'} |" if last else "see the next row |"))
    lines += ["", "| arm | change | function | mechanism | ground truth | tasks +/- | p |",
              "|---|---|---|---|---|---|---|"]
    for name, arm in arms.items():
        for change in arm["promoted"]:
            for f in (judge(function, truth, alpha, change.get("sha256", {}).get(function))
                      for function in change["functions"]):
                measured = (f"{f['tasks_up']} / {f['tasks_down']}", f"{f['p']:.3g}") if "p" in f else ("-", "-")
                lines.append(f"| {name} | {change['id']} | {f['function']} | {f['tag'] or '-'} | {f['verdict']} | "
                             + " | ".join(measured) + " |")
    if arms and not any(arm["promoted"] for arm in arms.values()):
        lines.append("| - | nothing promoted | | | | | |")
    if any(h and h["simulated"] for arm in arms.values() for h in (arm["heldout"], arm.get("heldout_reselected"))):
        lines += ["", "**sim model**: these numbers test the machinery, not a real model."]
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--arm", action="append", default=[], metavar="NAME=RUN",
                        help="collect this evolve run as arm NAME (repeatable)")
    parser.add_argument("--mechanisms", type=Path, default=HERE / "results" / "mechanisms.json")
    parser.add_argument("--results", type=Path, default=HERE / "results")
    parser.add_argument("--alpha", type=float, default=0.1)
    parser.add_argument("--family", nargs="*", default=[], metavar="ARM",
                        help="the arms evaluated on the re-selected held-out set, declared before their results "
                             "(one family: Holm-adjusted, a member not evaluated yet at p = 1)")
    args = parser.parse_args()
    truth = json.loads(args.mechanisms.read_text()) if args.mechanisms.is_file() else None
    for spec in args.arm:
        name, _, run = spec.partition("=")
        if not name or not run:
            parser.error(f"--arm {spec!r}: expected NAME=RUN_DIR")
        if not (Path(run) / "history.jsonl").is_file():
            print(f"arm {name}: {run} has no history.jsonl yet (run `bench/small_tier/run.sh evolve`); skipped")
            continue
        try:
            arm = arm_summary(Path(run), args.results / f"evolve-{name}" / "heldout-eval.json")
        except ValueError as exc:  # a run file that does not fit its model: say which, in one line
            parser.exit(2, f"error: arm {name}: {exc}\n")
        write_text(args.results / f"evolve-{name}" / "arm.json", json.dumps(arm, indent=2) + "\n")
    arms = {p.parent.name.removeprefix("evolve-"): json.loads(p.read_text())
            for p in sorted(args.results.glob("evolve-*/arm.json"))}
    for name in args.family:  # a misspelt member would count at p = 1 for good, silently
        if name not in arms and name not in {spec.partition("=")[0] for spec in args.arm}:
            parser.exit(2, f"error: --family {name}: no such arm (neither --arm {name}=RUN nor "
                           f"{args.results / f'evolve-{name}' / 'arm.json'}); name the arms as --arm does\n")
    text = render(arms, truth, args.alpha, args.family)  # judges the re-selected rows as one family: arm.json again
    for name, arm in arms.items():
        write_text(args.results / f"evolve-{name}" / "arm.json", json.dumps(arm, indent=2) + "\n")
    write_text(args.results / "summary.md", text)
    print(text, end="")


if __name__ == "__main__":
    main()
