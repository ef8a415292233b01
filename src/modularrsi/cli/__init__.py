"""The ``modularrsi`` command: a thin typer layer that builds config and calls the library."""

from __future__ import annotations

import asyncio
import logging
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
    Commands,
    SpreadCommand,
    console,
    described,
    fail,
    fit_output,
    open_run,
    raise_caps,
    refuse_with_resume,
    settings_command,
)
from modularrsi.rollouts.config import RunConfig
from modularrsi.util.errors import UserError
from modularrsi.util.outbound import apply_offline_defaults

app = typer.Typer(cls=Commands, no_args_is_help=True, add_completion=False, pretty_exceptions_show_locals=False,
                  help="Evolve an agent harness from its own execution experience, module by module.")
tasks_app = typer.Typer(no_args_is_help=True, help="Work with task pools (Harbor format).")
app.add_typer(tasks_app, name="tasks")


def _register_task_commands() -> None:
    """The pool-curation commands (each imported when its group is used: a command's help stays fast)."""
    from modularrsi.cli import check as cli_check
    from modularrsi.cli import difficulty as cli_difficulty
    from modularrsi.cli import overlap as cli_overlap
    from modularrsi.cli import select as cli_select

    tasks_app.command("check")(cli_check.command)
    tasks_app.command("validate")(cli_check.validate)
    tasks_app.command("overlap")(cli_overlap.command)
    tasks_app.command("difficulty")(cli_difficulty.command)
    tasks_app.command("select")(cli_select.command)


_register_task_commands()


def _register_evolve_commands() -> None:
    from modularrsi.cli import evolve as cli_evolve

    app.command("evolve", cls=settings_command("modularrsi.evolve.config:EvolveConfig"))(cli_evolve.evolve)
    app.command("eval", cls=settings_command("modularrsi.evolve.evaluate:EvalConfig"))(cli_evolve.eval_command)


_register_evolve_commands()


def _register_report_commands() -> None:
    from modularrsi.cli import report as cli_report

    app.command("report")(cli_report.report)
    app.command("runs")(cli_report.runs)
    app.command("show")(cli_report.show)


_register_report_commands()


def _register_image_commands() -> None:
    from modularrsi.cli import images as cli_images

    app.add_typer(cli_images.app, name="images")


_register_image_commands()


def _register_generation_commands() -> None:
    from modularrsi.cli import generation as cli_generation  # imports no Harbor (it takes seconds)

    app.add_typer(cli_generation.app, name="generation")


_register_generation_commands()


def _print_results(results) -> None:
    o = results.overall
    label = " [yellow](sim: a simulated model — these numbers test the machinery, not a real model)[/yellow]" \
        if results.simulated else ""
    table = Table(title=f"{results.run_id} — {results.model} on {o.tasks} tasks × k={o.k}{label}")
    for column in ("metric", "value", "95% CI"):
        table.add_column(column)
    for name, title in (("acc", "Acc"), ("pass_at_k", f"Pass@{o.k}"), ("pass_hat_k", f"Pass^{o.k}"),
                        ("mean_steps", "mean steps")):
        low, high = getattr(o, f"{name}_ci95")
        table.add_row(title, f"{getattr(o, name):.3f}", f"[{low:.3f}, {high:.3f}]")
    table.add_row("tokens in/out", f"{o.input_tokens:,} / {o.output_tokens:,}", "")
    table.add_row("cost (USD)", f"{o.cost_usd:.4f}", "")
    table.add_row("valid / invalid attempts", f"{o.attempts - o.invalid_attempts} / {o.invalid_attempts}",
                  "figures above: valid attempts only")
    table.add_row("environments", results.environments(), "")
    table.add_row("tasks all-pass / mixed / all-fail",
                  f"{o.all_pass_share:.0%} / {o.mixed_share:.0%} / {o.all_fail_share:.0%}", "")
    console.print(table)
    invalid = results.invalid()
    if invalid:
        listing = Table(title=f"{len(invalid)} invalid attempt(s): left out of Acc, each with its reason")
        for column in ("attempt", "reason"):
            listing.add_column(column)
        for a in invalid:
            listing.add_row(f"{a.task}__a{a.attempt}", a.invalid or a.error or "no reward")
        console.print(listing)


R = RunConfig  # the settings the options of `run` set: their help and defaults come from it


@app.command("run", cls=SpreadCommand)
def run(
    tasks: Annotated[list[Path] | None, typer.Option("--tasks", help=described(R, "tasks"), rich_help_panel=TASKS)
                     ] = None,
    dataset: Annotated[str | None, typer.Option("--dataset", help=described(R, "dataset"), rich_help_panel=TASKS)
                       ] = None,
    registry_path: Annotated[Path | None, typer.Option("--registry-path", help=described(R, "registry_path"),
                                                       rich_help_panel=TASKS)] = None,
    manifest: Annotated[Path | None, typer.Option("--manifest", help=described(R, "manifest"), rich_help_panel=TASKS)
                        ] = None,
    disjoint_from: Annotated[list[Path] | None, typer.Option("--disjoint-from", help=described(R, "disjoint_from"),
                                                             rich_help_panel=TASKS)] = None,
    generation: Annotated[Path | None, typer.Option("--generation", help=described(R, "generation"),
                                                    rich_help_panel=MODEL)] = None,
    model: Annotated[str | None, typer.Option("--model", "-m", help=described(R, "model"), rich_help_panel=MODEL)
                     ] = None,
    config: Annotated[Path | None, typer.Option("--config", help="YAML with any of these settings; flags win.",
                                                rich_help_panel=MODEL)] = None,
    k: Annotated[int | None, typer.Option("-k", help=described(R, "k"), rich_help_panel=ATTEMPTS)] = None,
    concurrency: Annotated[int | None, typer.Option("-n", "--concurrency", help=described(R, "concurrency"),
                                                    rich_help_panel=ATTEMPTS)] = None,
    env: Annotated[str | None, typer.Option("--env", help=described(R, "env"), rich_help_panel=ATTEMPTS)] = None,
    seed: Annotated[int | None, typer.Option("--seed", help=described(R, "seed"), rich_help_panel=ATTEMPTS)] = None,
    max_turns: Annotated[int | None, typer.Option("--max-turns", help=described(R, "max_turns"),
                                                  rich_help_panel=ATTEMPTS)] = None,
    max_tokens: Annotated[int | None, typer.Option("--max-tokens", help=described(R, "max_tokens"),
                                                   rich_help_panel=BUDGET)] = None,
    max_cost_usd: Annotated[float | None, typer.Option("--max-cost", help=described(R, "max_cost_usd"),
                                                       rich_help_panel=BUDGET)] = None,
    out: Annotated[Path | None, typer.Option("--out", help="Run directory (default runs/run-<time>).",
                                             rich_help_panel=RUN_DIR)] = None,
    resume: Annotated[Path | None, typer.Option("--resume", help="Finish an interrupted run directory with its own "
                                                "config.yaml (only the caps may be raised beside it).",
                                                rich_help_panel=RUN_DIR)] = None,
) -> None:
    """Run K attempts per task through Harbor trials; write a run directory with results.json."""
    from modularrsi.rollouts.live import LiveView
    from modularrsi.rollouts.preflight import check_run
    from modularrsi.rollouts.run import execute

    flags = {"tasks": tasks, "generation": generation, "model": model, "k": k, "concurrency": concurrency,
             "env": env, "dataset": dataset, "registry_path": registry_path, "seed": seed, "max_turns": max_turns,
             "manifest": manifest, "disjoint_from": disjoint_from}
    caps = {"max_tokens": max_tokens, "max_cost_usd": max_cost_usd}
    refuse_with_resume(resume, {f"--{k.replace('_', '-')}": v for k, v in flags.items()} | {"--config": config,
                                                                                           "--out": out})
    try:
        cfg, run_dir = open_run(RunConfig.load, config=config, flags=flags | caps, out=out, resume=resume,
                                prefix="run", on_resume=raise_caps(RunConfig.load, caps))
        check_run(cfg)  # before the live view opens: a refusal is one line
        with LiveView(console, f"{cfg.model} × k={cfg.k}") as view:
            results = asyncio.run(execute(cfg, run_dir.resolve(), [view], checked=True))
    except UserError as exc:
        raise fail(str(exc)) from None
    _print_results(results)
    console.print(f"run directory: {run_dir}")
    invalid = results.invalid()
    if invalid and len(invalid) == len(results.attempts):
        raise fail(f"all {len(invalid)} attempts were invalid (none got a fair chance), e.g. "
                   f"{invalid[0].task} attempt {invalid[0].attempt}: {invalid[0].invalid or invalid[0].error}")


def main() -> None:
    apply_offline_defaults()
    fit_output()
    logging.getLogger("harbor").setLevel(logging.WARNING)
    app()
