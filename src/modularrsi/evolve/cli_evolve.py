"""``modularrsi evolve`` and ``modularrsi eval`` (registered by ``modularrsi.cli``)."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Annotated

import typer
from rich.table import Table

from modularrsi.cli_common import console, fail, open_run, refuse_with_resume
from modularrsi.models.base import ModelError
from modularrsi.tasks.trials import ENV_HELP


def _printer(event: str, data: dict) -> None:
    if event == "epoch" and data.get("stage") in ("sample", "done"):
        extra = f" ({data['promoted']} promoted)" if data.get("stage") == "done" else ""
        console.print(f"[cyan]{data['lane']}[/cyan] epoch {data['epoch']}: {data['stage']}{extra}", highlight=False)
    elif event == "gate":
        colour = "green" if data["outcome"] == "promoted" else "yellow"
        why = f" at {data['rejected_by']}: {data['reason'][:110]}" if data.get("rejected_by") else ""
        console.print(f"  [{colour}]{data['change']} {data['outcome']}[/{colour}]{why}", highlight=False)


def evolve(
    config: Annotated[Path | None, typer.Option("--config", help="Evolution settings (YAML); see --print-config.")
                      ] = None,
    tasks: Annotated[list[Path] | None, typer.Option("--tasks", help="Evolution tasks (overrides the file).")] = None,
    model: Annotated[str | None, typer.Option("--model", "-m", help="Model of every role not set in `roles`.")
                     ] = None,
    epochs: Annotated[int | None, typer.Option("--epochs", help="Epochs per lane (default 3).")] = None,
    k: Annotated[int | None, typer.Option("-k", help="Attempts per task and epoch (default 3).")] = None,
    concurrency: Annotated[int | None, typer.Option("-n", "--concurrency", help="Attempts at once.")] = None,
    seed: Annotated[int | None, typer.Option("--seed", help="Seed (default 0).")] = None,
    joint: Annotated[bool, typer.Option("--joint", help="Ablation: all modules in one lane.")] = False,
    monolithic: Annotated[bool, typer.Option("--monolithic", help="Ablation: one lane, no module lock.")] = False,
    no_contrast: Annotated[bool, typer.Option("--no-contrast", help="Ablation: single-sided analysis only.")
                           ] = False,
    out: Annotated[Path | None, typer.Option("--out", help="Run directory (default runs/evolve-<time>).")] = None,
    resume: Annotated[Path | None, typer.Option("--resume", help="Continue an interrupted evolution run.")] = None,
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
            raise ValueError("--joint and --monolithic are different ablations; give one")
        refuse_with_resume(resume, {"--config": config, "--tasks": tasks, "--model": model, "--epochs": epochs,
                                    "-k": k, "-n": concurrency, "--seed": seed, "--joint": joint,
                                    "--monolithic": monolithic, "--no-contrast": no_contrast, "--out": out})
        flags = {"tasks": tasks, "model": model, "epochs": epochs, "k": k, "concurrency": concurrency, "seed": seed,
                 "mode": "joint" if joint else "monolithic" if monolithic else None,
                 "contrast": False if no_contrast else None}
        cfg, run_dir = open_run(EvolveConfig.load, config=config, flags=flags, out=out, resume=resume,
                                prefix="evolve", what="an evolution run directory")
        preflight(cfg)
        summary = asyncio.run(Evolution(cfg, run_dir.resolve(), [_printer]).run())
    except (ValueError, FileNotFoundError, ModelError) as exc:
        raise fail(str(exc)) from None
    console.print(f"frozen generation: {run_dir / 'frozen'} ({summary['frozen_id']})")
    if "eval" in summary:
        from modularrsi.evolve.evaluate import EvalResult

        print_eval(EvalResult.model_validate_json(Path(summary["eval"]).read_text()))
    console.print(f"run directory: {run_dir}")


def preflight(cfg) -> None:
    """Every role's model answers and every evolution and held-out task is usable, before anything is written."""
    from modularrsi.models.roles import ROLES
    from modularrsi.rollouts.preflight import check_models, check_tasks, is_sim

    check_models([cfg.role(role) for role in ROLES])
    check_tasks([*cfg.tasks, *cfg.eval_tasks], sim=is_sim(cfg.role("agent").model))


def eval_command(
    generation: Annotated[Path | None, typer.Option("--generation", help="Candidate generation (e.g. RUN/frozen).")
                          ] = None,
    baseline: Annotated[Path | None, typer.Option("--baseline", help="Baseline generation (default gen_0).")
                        ] = None,
    tasks: Annotated[list[Path] | None, typer.Option("--tasks", help="Held-out task dirs.")] = None,
    k: Annotated[int | None, typer.Option("-k", help="Attempts per task and side (default 3).")] = None,
    model: Annotated[str | None, typer.Option("--model", "-m", help="Agent model (default sim).")] = None,
    concurrency: Annotated[int | None, typer.Option("-n", "--concurrency", help="Attempts at once (default 8).")
                           ] = None,
    env: Annotated[str | None, typer.Option("--env", help=ENV_HELP + " Default: auto.")] = None,
    dataset: Annotated[str | None, typer.Option("--dataset", help="Harbor dataset NAME@VERSION.")] = None,
    registry_path: Annotated[Path | None, typer.Option("--registry-path", help="Local registry JSON.")] = None,
    seed: Annotated[int | None, typer.Option("--seed", help="Seed shared by both sides (default 0).")] = None,
    max_turns: Annotated[int | None, typer.Option("--max-turns", help="Turn limit per attempt (default 50).")
                         ] = None,
    disjoint_from: Annotated[list[Path] | None, typer.Option("--disjoint-from", help="Refuse tasks this "
                                                             "manifest or evolution run evolved on.")] = None,
    config: Annotated[Path | None, typer.Option("--config", help="YAML with any of these settings; flags win.")
                      ] = None,
    allow_overlap: Annotated[bool, typer.Option("--allow-overlap", help="Run tasks the candidate's frozen library "
                                                "evolved on (refused by default); the result says so.")] = False,
    out: Annotated[Path | None, typer.Option("--out", help="Eval directory (default runs/eval-<time>).")] = None,
    resume: Annotated[Path | None, typer.Option("--resume", help="Finish an interrupted eval directory.")] = None,
) -> None:
    """Paired comparison of two generations on held-out tasks (same seeds on both sides)."""
    from modularrsi.evolve.evaluate import EvalConfig, evaluate
    from modularrsi.evolve.layout import BASELINE
    from modularrsi.util.files import write_yaml

    try:
        refuse_with_resume(resume, {"--generation": generation, "--baseline": baseline, "--tasks": tasks, "-k": k,
                                    "--model": model, "-n": concurrency, "--env": env, "--dataset": dataset,
                                    "--seed": seed, "--max-turns": max_turns, "--disjoint-from": disjoint_from,
                                    "--config": config, "--out": out, "--registry-path": registry_path,
                                    "--allow-overlap": allow_overlap or None})
        manifests, evolved = _disjoint(disjoint_from or [])
        flags = {"generation": generation, "baseline": baseline, "tasks": tasks, "k": k, "model": model,
                 "concurrency": concurrency, "env": env, "dataset": dataset, "registry_path": registry_path,
                 "seed": seed, "max_turns": max_turns, "disjoint_from": manifests,
                 "allow_overlap": allow_overlap or None}
        cfg, out_dir = open_run(EvalConfig.load, config=config, flags=flags, out=out, resume=resume, prefix="eval",
                                what="an eval directory")
        _check_eval(cfg, evolved)
        if resume is None:  # written once the input is known good: a corrected command can reuse --out
            out_dir.mkdir(parents=True, exist_ok=True)
            write_yaml(out_dir / "config.yaml", cfg.dump())
        result = asyncio.run(evaluate(cfg.template(), cfg.baseline or BASELINE, cfg.generation, out_dir.resolve(),
                                      allow_overlap=cfg.allow_overlap))
    except (ValueError, FileNotFoundError) as exc:
        raise fail(str(exc)) from None
    print_eval(result)
    console.print(f"eval directory: {out_dir}")
    if result.tasks == 0:
        raise fail("no task has a valid attempt on both sides (see the invalid attempts above); nothing was compared")


def _check_eval(cfg, evolved: set[str]) -> None:
    """Before anything is written: a candidate is named, both generations load, the tasks and the model
    pass the preflight, none of the tasks is one the evolution run (or the frozen library) evolved on."""
    from modularrsi.evolve.evaluate import check_overlap
    from modularrsi.evolve.layout import BASELINE
    from modularrsi.harness.library import load_generation
    from modularrsi.rollouts.preflight import check_run
    from modularrsi.rollouts.run import resolve_tasks

    if cfg.generation is None:
        raise ValueError("eval needs --generation: the candidate generation (e.g. RUN/frozen)")
    for generation in (cfg.baseline or BASELINE, cfg.generation):
        load_generation(generation)
    check_run(cfg.template())
    asyncio.run(check_overlap(cfg.template(), cfg.generation, cfg.allow_overlap))
    clash = sorted({name for name, _ in asyncio.run(resolve_tasks(cfg.template()))} & evolved) if evolved else []
    if clash:
        raise ValueError(f"refusing to evaluate on {len(clash)} task(s) the evolution run evolved on "
                         f"(e.g. {clash[0]}); evaluation tasks must be disjoint from evolution tasks")


def _disjoint(paths: list[Path]) -> tuple[list[Path], set[str]]:
    """Split --disjoint-from into pool manifests (files) and run directories: an evolution's or a plain
    run's, whose lock.json names the tasks it ran."""
    import json

    manifests, evolved = [], set()
    for path in paths:
        if not path.is_dir():
            manifests.append(path)
            continue
        lock = path / "lock.json"
        try:
            tasks = json.loads(lock.read_text()).get("tasks", [])
            evolved |= {t["name"] if isinstance(t, dict) else str(t) for t in tasks}
        except (OSError, ValueError, AttributeError, KeyError, TypeError) as exc:
            raise ValueError(f"--disjoint-from {path}: a directory must be a run directory with a readable "
                             f"lock.json listing its tasks ({type(exc).__name__}: {exc})") from None
    return manifests, evolved


def print_eval(result) -> None:
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
    console.print(f"invalid attempts (left out of every figure): baseline {result.baseline.invalid_attempts}, "
                  f"candidate {result.candidate.invalid_attempts}; listed in each side's results.json", highlight=False)
