"""``modularrsi evolve`` and ``modularrsi eval`` (registered by ``modularrsi.cli``)."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Annotated

import typer
from rich.table import Table

from modularrsi.cli.common import (
    ATTEMPTS,
    BUDGET,
    MODEL,
    RUN_DIR,
    TASKS,
    console,
    fail,
    later,
    open_run,
    raise_caps,
    refuse_with_resume,
)
from modularrsi.models.base import ModelError
from modularrsi.util.errors import UserError


def _printer(event: str, data: dict) -> None:
    if event == "epoch" and data.get("stage") in ("sample", "done"):
        extra = f" ({data['promoted']} promoted)" if data.get("stage") == "done" else ""
        console.print(f"[cyan]{data['lane']}[/cyan] epoch {data['epoch']}: {data['stage']}{extra}", highlight=False)
    elif event == "gate":
        colour = "green" if data["outcome"] == "promoted" else "yellow"
        why = f" at {data['rejected_by']}: {data['reason'][:110]}" if data.get("rejected_by") else ""
        console.print(f"  [{colour}]{data['change']} {data['outcome']}[/{colour}]{why}", highlight=False)


ABLATIONS = "Ablations"


def evolve(
    config: Annotated[Path | None, typer.Option("--config", help="Evolution settings (YAML); see --print-config.",
                                                rich_help_panel=MODEL)] = None,
    tasks: Annotated[list[Path] | None, typer.Option("--tasks", help=later("tasks"), rich_help_panel=TASKS)
                     ] = None,
    generation: Annotated[Path | None, typer.Option("--generation", help=later("generation") + " See "
                                                    "`modularrsi generation new`.", rich_help_panel=MODEL)] = None,
    model: Annotated[str | None, typer.Option("--model", "-m", help=later("model"), rich_help_panel=MODEL)
                     ] = None,
    epochs: Annotated[int | None, typer.Option("--epochs", help=later("epochs"), rich_help_panel=ATTEMPTS)
                      ] = None,
    k: Annotated[int | None, typer.Option("-k", help=later("k"), rich_help_panel=ATTEMPTS)] = None,
    concurrency: Annotated[int | None, typer.Option("-n", "--concurrency", help=later("concurrency"),
                                                    rich_help_panel=ATTEMPTS)] = None,
    env: Annotated[str | None, typer.Option("--env", help=later("env"), rich_help_panel=ATTEMPTS)] = None,
    seed: Annotated[int | None, typer.Option("--seed", help=later("seed"), rich_help_panel=ATTEMPTS)] = None,
    joint: Annotated[bool, typer.Option("--joint", help="Ablation: all modules in one lane.",
                                        rich_help_panel=ABLATIONS)] = False,
    monolithic: Annotated[bool, typer.Option("--monolithic", help="Ablation: one lane, no module lock.",
                                             rich_help_panel=ABLATIONS)] = False,
    no_contrast: Annotated[bool, typer.Option("--no-contrast", help="Ablation: single-sided analysis only.",
                                              rich_help_panel=ABLATIONS)] = False,
    max_tokens: Annotated[int | None, typer.Option("--max-tokens", help=later("max_tokens"),
                                                   rich_help_panel=BUDGET)] = None,
    max_cost_usd: Annotated[float | None, typer.Option("--max-cost", help=later("max_cost_usd"),
                                                       rich_help_panel=BUDGET)] = None,
    out: Annotated[Path | None, typer.Option("--out", help="Run directory (default runs/evolve-<time>).",
                                             rich_help_panel=RUN_DIR)] = None,
    resume: Annotated[Path | None, typer.Option("--resume", help="Continue an interrupted evolution run with its "
                                                "own config.yaml (only the caps may be raised beside it).",
                                                rich_help_panel=RUN_DIR)] = None,
    print_config: Annotated[bool, typer.Option("--print-config", help="Print every setting and exit.")] = False,
) -> None:
    """Evolve the harness: lanes per module → gates → integration → merge → freeze (→ eval)."""
    from modularrsi.evolve.config import EvolveConfig, describe
    from modularrsi.evolve.pipeline import Evolution

    if print_config:
        console.print("\n".join(describe()), highlight=False, markup=False, soft_wrap=True)
        return
    try:
        if joint and monolithic:
            raise UserError("--joint and --monolithic are different ablations; give one")
        refuse_with_resume(resume, {"--config": config, "--tasks": tasks, "--generation": generation, "--model": model,
                                    "--epochs": epochs, "-k": k, "-n": concurrency, "--env": env, "--seed": seed,
                                    "--joint": joint, "--monolithic": monolithic, "--no-contrast": no_contrast,
                                    "--out": out})
        flags = {"tasks": tasks, "generation": generation, "model": model, "epochs": epochs, "k": k,
                 "concurrency": concurrency, "env": env, "seed": seed,
                 "mode": "joint" if joint else "monolithic" if monolithic else None,
                 "contrast": False if no_contrast else None}
        caps = {"max_tokens": max_tokens, "max_cost_usd": max_cost_usd}
        cfg, run_dir = open_run(EvolveConfig.load, config=config, flags=flags | caps, out=out, resume=resume,
                                prefix="evolve", what="an evolution run directory",
                                on_resume=raise_caps(EvolveConfig.load, caps))
        summary = asyncio.run(Evolution(cfg, run_dir.resolve(), [_printer]).run())
    except (UserError, ModelError) as exc:
        raise fail(str(exc)) from None
    console.print(f"frozen generation: {run_dir / 'frozen'} ({summary.frozen_id})")
    if summary.eval is not None:
        from modularrsi.evolve.evaluate import EvalResult

        print_eval(EvalResult.model_validate_json(Path(summary.eval).read_text()))
    console.print(f"run directory: {run_dir}")


def eval_command(
    generation: Annotated[Path | None, typer.Option("--generation", help="Candidate generation (e.g. RUN/frozen).",
                                                    rich_help_panel=MODEL)] = None,
    baseline: Annotated[Path | None, typer.Option("--baseline", help=later("baseline"),
                                                  rich_help_panel=MODEL)] = None,
    model: Annotated[str | None, typer.Option("--model", "-m", help=later("model"), rich_help_panel=MODEL)
                     ] = None,
    config: Annotated[Path | None, typer.Option("--config", help="YAML with any of these settings; flags win.",
                                                rich_help_panel=MODEL)] = None,
    tasks: Annotated[list[Path] | None, typer.Option("--tasks", help="Held-out task directories.",
                                                     rich_help_panel=TASKS)] = None,
    dataset: Annotated[str | None, typer.Option("--dataset", help=later("dataset"), rich_help_panel=TASKS)
                       ] = None,
    registry_path: Annotated[Path | None, typer.Option("--registry-path", help=later("registry_path"),
                                                       rich_help_panel=TASKS)] = None,
    disjoint_from: Annotated[list[Path] | None, typer.Option("--disjoint-from", help="Refuse tasks this "
                                                             "manifest or evolution run evolved on.",
                                                             rich_help_panel=TASKS)] = None,
    allow_overlap: Annotated[bool, typer.Option("--allow-overlap", help=later("allow_overlap"),
                                                rich_help_panel=TASKS)] = False,
    share_from: Annotated[list[Path] | None, typer.Option("--share-from", help=later("share_from"),
                                                          rich_help_panel=RUN_DIR)] = None,
    k: Annotated[int | None, typer.Option("-k", help=later("k", "Attempts per task and side."),
                                          rich_help_panel=ATTEMPTS)] = None,
    concurrency: Annotated[int | None, typer.Option("-n", "--concurrency", help=later("concurrency"),
                                                    rich_help_panel=ATTEMPTS)] = None,
    env: Annotated[str | None, typer.Option("--env", help=later("env"), rich_help_panel=ATTEMPTS)] = None,
    seed: Annotated[int | None, typer.Option("--seed", help=later("seed", "Seed shared by both sides."),
                                             rich_help_panel=ATTEMPTS)] = None,
    max_turns: Annotated[int | None, typer.Option("--max-turns", help=later("max_turns"),
                                                  rich_help_panel=ATTEMPTS)] = None,
    max_tokens: Annotated[int | None, typer.Option("--max-tokens", help=later("max_tokens", "Token cap of "
                                                   "each side."), rich_help_panel=BUDGET)] = None,
    max_cost_usd: Annotated[float | None, typer.Option("--max-cost", help=later("max_cost_usd", "Cost cap "
                                                       "of each side, USD."), rich_help_panel=BUDGET)] = None,
    out: Annotated[Path | None, typer.Option("--out", help="Eval directory (default runs/eval-<time>).",
                                             rich_help_panel=RUN_DIR)] = None,
    resume: Annotated[Path | None, typer.Option("--resume", help="Finish an interrupted eval directory with its own "
                                                "config.yaml (only the caps may be raised beside it).",
                                                rich_help_panel=RUN_DIR)] = None,
) -> None:
    """Paired comparison of two generations on held-out tasks (same seeds on both sides)."""
    from modularrsi.evolve.evaluate import EvalConfig, evaluate
    from modularrsi.harness import BASELINE
    from modularrsi.util.files import write_yaml

    try:
        refuse_with_resume(resume, {"--generation": generation, "--baseline": baseline, "--tasks": tasks, "-k": k,
                                    "--model": model, "-n": concurrency, "--env": env, "--dataset": dataset,
                                    "--seed": seed, "--max-turns": max_turns, "--disjoint-from": disjoint_from,
                                    "--config": config, "--out": out, "--registry-path": registry_path,
                                    "--allow-overlap": allow_overlap or None, "--share-from": share_from})
        manifests, evolved = _disjoint(disjoint_from or [])
        flags = {"generation": generation, "baseline": baseline, "tasks": tasks, "k": k, "model": model,
                 "concurrency": concurrency, "env": env, "dataset": dataset, "registry_path": registry_path,
                 "seed": seed, "max_turns": max_turns, "disjoint_from": manifests,
                 "allow_overlap": allow_overlap or None, "share_from": share_from}
        caps = {"max_tokens": max_tokens, "max_cost_usd": max_cost_usd}
        cfg, out_dir = open_run(EvalConfig.load, config=config, flags=flags | caps, out=out, resume=resume,
                                prefix="eval", what="an eval directory", on_resume=raise_caps(EvalConfig.load, caps))
        _check_eval(cfg, evolved)
        if resume is None:  # written once the input is known good: a corrected command can reuse --out
            out_dir.mkdir(parents=True, exist_ok=True)
            write_yaml(out_dir / "config.yaml", cfg.dump())
        result = asyncio.run(evaluate(cfg.template(), cfg.baseline or BASELINE, cfg.generation, out_dir.resolve(),
                                      allow_overlap=cfg.allow_overlap, checked=True, share_from=cfg.share_from))
    except UserError as exc:
        raise fail(str(exc)) from None
    print_eval(result)
    console.print(f"eval directory: {out_dir}")
    if result.tasks == 0:
        raise fail("no task has a valid attempt on both sides (see the invalid attempts above); nothing was compared")


def _check_eval(cfg, evolved: set[str]) -> None:
    """Before anything is written: a candidate is named, both generations load, the tasks and the model
    pass the preflight, none of the tasks is one the evolution run (or the frozen library) evolved on."""
    from modularrsi.evolve.evaluate import check_overlap
    from modularrsi.harness import BASELINE
    from modularrsi.harness.library import load_generation
    from modularrsi.rollouts.preflight import check_run
    from modularrsi.rollouts.run import resolve_tasks

    if cfg.generation is None:
        raise UserError("eval needs --generation: the candidate generation (e.g. RUN/frozen)")
    for generation in (cfg.baseline or BASELINE, cfg.generation):
        load_generation(generation)
    check_run(cfg.template())
    asyncio.run(check_overlap(cfg.template(), cfg.generation, cfg.allow_overlap))
    clash = sorted({name for name, _ in asyncio.run(resolve_tasks(cfg.template()))} & evolved) if evolved else []
    if clash:
        raise UserError(f"refusing to evaluate on {len(clash)} task(s) the evolution run evolved on "
                        f"(e.g. {clash[0]}); evaluation tasks must be disjoint from evolution tasks")


def lock_tasks(text: str) -> set[str]:
    """The task names a run directory's ``lock.json`` lists: an evolution's (names), else a run's (each with
    its path)."""
    from pydantic import ValidationError

    from modularrsi.evolve.runfiles import EvolveLock
    from modularrsi.rollouts.state import RunLock

    try:
        return set(EvolveLock.model_validate_json(text).tasks)
    except ValidationError:
        return {t.name for t in RunLock.model_validate_json(text).tasks}


def _disjoint(paths: list[Path]) -> tuple[list[Path], set[str]]:
    """Split --disjoint-from into pool manifests (files) and run directories: an evolution's or a plain
    run's, whose lock.json names the tasks it ran."""
    from pydantic import ValidationError

    from modularrsi.util.settings import option_error

    manifests, evolved = [], set()
    for path in paths:
        if not path.is_dir():
            manifests.append(path)
            continue
        lock = path / "lock.json"
        try:
            evolved |= lock_tasks(lock.read_text())
        except (OSError, ValidationError) as exc:
            why = option_error(exc, "field") if isinstance(exc, ValidationError) else f"{type(exc).__name__}: {exc}"
            raise UserError(f"--disjoint-from {path}: a directory must be a run directory with a readable "
                            f"lock.json listing its tasks ({why})") from None
    return manifests, evolved


def print_eval(result) -> None:
    from modularrsi.evolve.gates.stats import tasks_to_show

    label = " (sim: says the machinery works, not what a real model gains)" if result.simulated else ""
    if result.overlap:
        label += f" (NOT held out: {len(result.overlap)} task(s) the candidate evolved on, --allow-overlap)"
    table = Table(title=f"candidate vs baseline on {result.tasks} tasks, k={result.k}{label}")
    for column in ("metric", "baseline", "candidate", "difference [95% CI]"):
        table.add_column(column)
    for d in result.deltas:
        table.add_row(d.metric, f"{d.baseline:.3f}", f"{d.candidate:.3f}",
                      f"{d.diff:+.3f} [{d.ci95[0]:+.3f}, {d.ci95[1]:+.3f}]")
    console.print(table)
    wil = "n/a" if result.wilcoxon_p is None else f"{result.wilcoxon_p:.3g}"
    console.print(f"tasks fixed {result.fixed}, broken {result.broken}, unchanged {result.unchanged}: sign test "
                  f"over tasks p={result.sign_test_p:.3g}; Wilcoxon (per-task Acc) p={wil}; attempt pairs "
                  f"{result.attempt_pairs} (fail→pass {result.fail_to_pass}, pass→fail {result.pass_to_fail}; "
                  "description only: attempts of one task are not independent)", highlight=False)
    if result.sign_test_p >= 0.05:
        console.print(f"not significant: {tasks_to_show(result.tasks, result.fixed, result.broken)}", highlight=False)
    console.print(f"invalid attempts (left out of every figure): baseline {result.baseline.invalid_attempts}, "
                  f"candidate {result.candidate.invalid_attempts}; listed in each side's results.json", highlight=False)
    if result.shared:
        taken = ", ".join(f"{side} {n}" for side, n in result.shared.items())
        console.print(f"attempts taken from other evals (--share-from; the same draws, listed in each side's "
                      f"shared.json): {taken}", highlight=False)
