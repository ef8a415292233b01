"""``modularrsi tasks check PATH...`` and ``tasks validate PATH...``: thin typer layers over
:mod:`modularrsi.tasks.check` and :mod:`modularrsi.tasks.validate` (validate is check's oracle-and-nop
core: the same task discovery, environment, progress lines and exit codes).

Exit codes: 0 every task passed (flags allowed), 1 some task FAILED, 2 bad input (one line on stderr).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.table import Table

from modularrsi.cli.common import console, fail, stamp
from modularrsi.tasks.trials import ENV_HELP
from modularrsi.util.errors import EXIT_FAILED, UserError

PATHS = Annotated[list[Path], typer.Argument(help="Task directories or directories of tasks.")]
ENV = Annotated[str, typer.Option("--env", help=ENV_HELP)]


def _inputs(paths: list[Path], env: str, manifest: Path | None = None) -> tuple[list[Path], Any]:
    """The task directories under ``paths`` and the ``--env`` name (``auto`` resolves per task); a
    one-line error (exit 2) for a missing path, an unknown environment, a bad manifest or no task."""
    from modularrsi.tasks.manifest import load_manifest
    from modularrsi.tasks.model import discover
    from modularrsi.tasks.trials import check_environment_name

    logging.getLogger("harbor").setLevel(logging.WARNING)
    try:
        task_dirs = discover([p.resolve() for p in paths])
        environment = check_environment_name(env)
        if manifest is not None:
            load_manifest(manifest)
    except UserError as exc:
        raise fail(str(exc)) from None
    if not task_dirs:
        raise fail(f"no tasks found under {', '.join(map(str, paths))}")
    return task_dirs, environment


def _progress(problems: Callable[[Any], str]) -> Callable[[Any], None]:
    """A line per finished task: ok or FAIL with what ``problems`` says about it."""
    def done(row: Any) -> None:
        mark = "[green]ok[/green]" if row.ok else "[red]FAIL[/red]"
        detail = problems(row)
        console.print(f"{mark} {row.task}" + (f" — {detail}" if detail else ""), highlight=False)
    return done


def _table(title: str, columns: list[str], rows: list[list[str]]) -> None:
    table = Table(title=title)
    for column in columns:
        table.add_column(column)
    for row in rows:
        table.add_row(*row)
    console.print(table)


def _fmt(value: float | None) -> str:
    return "—" if value is None else f"{value:g}"


def _row(report) -> list[str]:
    ev, tr, judge = report.evaluator, report.non_triviality, report.judge
    oracle = f"{sum(r is not None and r >= 1 for r in ev.oracle)}/{len(ev.oracle)}" if ev else "—"
    judged = "—" if judge is None else (judge.flags[0] if judge.error else "/".join(map(str, judge.scores.values())))
    if report.ok:
        verdict = "[green]ok[/green]" + (f" [yellow]{', '.join(report.flags)}[/yellow]" if report.flags else "")
    else:
        verdict = "[red]FAIL[/red] " + "; ".join(report.failures)
    return [report.task, "[green]ok[/green]" if report.environment.ok else "[red]FAIL[/red]", oracle,
            _fmt(ev.nop) if ev else "—", _fmt(ev.partial) if ev else "—", _fmt(ev.forgery) if ev else "—",
            str(tr.steps) if tr else "—",
            str(tr.words) if tr else "—", judged, verdict]


def command(
    paths: PATHS,
    concurrency: Annotated[int, typer.Option("-n", "--concurrency", min=1, help="Tasks checked at once.")] = 4,
    repeats: Annotated[int, typer.Option("--repeats", min=1, help="Oracle runs per task; each must get 1.")] = 2,
    env: ENV = "auto",
    out: Annotated[Path | None, typer.Option("--out", help="Trials and check.json (default runs/check-<time>).")
                   ] = None,
    manifest: Annotated[Path | None, typer.Option("--manifest", help="Pool manifest whose 'check' fields to set.")
                        ] = None,
    min_steps: Annotated[int, typer.Option("--min-steps", min=0, help="Flag 'trivial' under this many steps.")] = 2,
    min_words: Annotated[int, typer.Option("--min-words", min=0, help="Flag 'trivial' under this many words.")] = 25,
    judge: Annotated[str | None, typer.Option("--judge", help="LLM judge model (scripted:FILE.json or a LiteLLM "
                                              "name); skipped by default.")] = None,
    judge_api_base: Annotated[str | None, typer.Option("--judge-api-base", help="Judge endpoint URL.")] = None,
    judge_api_key_env: Annotated[str | None, typer.Option("--judge-api-key-env",
                                                          help="Variable holding the judge's API key.")] = None,
    judge_min_score: Annotated[int, typer.Option("--judge-min-score", min=1, max=5,
                                                 help="Flag 'judge-low' under this score.")] = 3,
) -> None:
    """Environment integrity, evaluator validity (oracle × repeats, nop, partial solution, reward-forging
    attacks), non-triviality and an optional LLM judge, per task; exit 1 if any task fails."""
    from modularrsi.tasks.check import CheckConfig, CheckReport, check_tasks, update_manifest

    task_dirs, environment = _inputs(paths, env, manifest)
    judged = {"model": judge, "api_base": judge_api_base, "api_key_env": judge_api_key_env} if judge else None
    config = CheckConfig(repeats=repeats, min_steps=min_steps, min_words=min_words, judge=judged,
                         judge_min_score=judge_min_score, concurrency=concurrency)
    out = (out or Path("runs") / f"check-{stamp()}").resolve()

    def problems(report: CheckReport) -> str:
        return "; ".join(report.failures) if not report.ok else ", ".join(report.flags)

    with console.status(f"checking {len(task_dirs)} tasks in {env} …"):
        reports = asyncio.run(check_tasks(task_dirs, out, environment, config, _progress(problems)))
    _table("Task check", ["task", "env", f"oracle x/{repeats}", "nop", "partial", "forgery", "steps", "words", "judge",
                          "verdict / flags"], [_row(r) for r in reports])
    failed = sum(not r.ok for r in reports)
    flagged = sum(r.ok and bool(r.flags) for r in reports)
    console.print(f"{len(reports) - failed} passed ({flagged} flagged), {failed} failed — "
                  f"report: {out / 'check.json'}", highlight=False)
    if manifest is not None:
        digest = update_manifest(manifest, reports)
        console.print(f"manifest updated: {manifest} ({digest})", highlight=False)
    if failed:
        raise typer.Exit(EXIT_FAILED)


def validate(
    paths: PATHS,
    concurrency: Annotated[int, typer.Option("-n", "--concurrency", help="Tasks validated at once.")] = 4,
    env: ENV = "auto",
    out: Annotated[Path | None, typer.Option("--out", help="Where trials and validation.json go.")] = None,
) -> None:
    """Oracle must get reward 1 and a do-nothing agent 0 on every task; exit 1 otherwise."""
    from modularrsi.tasks.validate import validate_tasks

    task_dirs, environment = _inputs(paths, env)
    out = (out or Path("runs") / f"validate-{stamp()}").resolve()
    with console.status(f"validating {len(task_dirs)} tasks (oracle + nop) in {env} …"):
        rows = asyncio.run(validate_tasks(task_dirs, out, environment, concurrency,
                                          _progress(lambda row: "" if row.ok else row.problem)))
    _table("Task validation", ["task", "oracle", "nop", "seconds", "verdict"],
           [[r.task, _fmt(r.oracle), _fmt(r.nop), f"{r.seconds:.1f}",
             "[green]ok[/green]" if r.ok else f"[red]{r.problem}[/red]"] for r in rows])
    failed = sum(not r.ok for r in rows)
    console.print(f"{len(rows) - failed} passed, {failed} failed — report: {out / 'validation.json'}")
    if failed:
        raise typer.Exit(EXIT_FAILED)
