"""``modularrsi tasks check PATH...``: the thin typer layer over :mod:`modularrsi.tasks.check`.

Exit codes: 0 every task passed (flags allowed), 1 some task FAILED, 2 bad input (one line on stderr).
"""

from __future__ import annotations

import asyncio
import datetime as dt
import logging
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table

from modularrsi.tasks.trials import ENV_HELP

console = Console()
err = Console(stderr=True)


def _fail(message: str) -> typer.Exit:
    err.print(f"[red]error:[/red] {message}", highlight=False, soft_wrap=True)
    return typer.Exit(2)


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
            _fmt(ev.nop) if ev else "—", _fmt(ev.partial) if ev else "—", str(tr.steps) if tr else "—",
            str(tr.words) if tr else "—", judged, verdict]


def command(
    paths: Annotated[list[Path], typer.Argument(help="Task directories or directories of tasks.")],
    concurrency: Annotated[int, typer.Option("-n", "--concurrency", min=1, help="Tasks checked at once.")] = 4,
    repeats: Annotated[int, typer.Option("--repeats", min=1, help="Oracle runs per task; each must get 1.")] = 2,
    env: Annotated[str, typer.Option("--env", help=ENV_HELP)] = "auto",
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
    """Environment integrity, evaluator validity (oracle × repeats, nop, partial solution),
    non-triviality and an optional LLM judge, per task; exit 1 if any task fails."""
    from modularrsi.tasks.check import CheckConfig, CheckReport, check_tasks, update_manifest
    from modularrsi.tasks.manifest import load_manifest
    from modularrsi.tasks.model import discover
    from modularrsi.tasks.trials import check_environment_name

    logging.getLogger("harbor").setLevel(logging.WARNING)
    settings = {k: v for k, v in {"api_base": judge_api_base, "api_key_env": judge_api_key_env}.items() if v}
    try:
        task_dirs = discover([p.resolve() for p in paths])
        environment = check_environment_name(env)
        if manifest is not None:
            load_manifest(manifest)
    except (FileNotFoundError, ValueError) as exc:
        raise _fail(str(exc)) from None
    if not task_dirs:
        raise _fail(f"no tasks found under {', '.join(map(str, paths))}")
    config = CheckConfig(repeats=repeats, min_steps=min_steps, min_words=min_words, judge=judge,
                         judge_settings=settings, judge_min_score=judge_min_score, concurrency=concurrency)
    stamp = dt.datetime.now(dt.UTC).strftime("%Y%m%d-%H%M%S")
    out = (out or Path("runs") / f"check-{stamp}").resolve()

    def done(report: CheckReport) -> None:
        mark = "[green]ok[/green]" if report.ok else "[red]FAIL[/red]"
        detail = "; ".join(report.failures) if not report.ok else ", ".join(report.flags)
        console.print(f"{mark} {report.task}" + (f" — {detail}" if detail else ""), highlight=False)

    with console.status(f"checking {len(task_dirs)} tasks in {env} …"):
        reports = asyncio.run(check_tasks(task_dirs, out, environment, config, done))
    table = Table(title="Task check")
    for column in ("task", "env", f"oracle x/{repeats}", "nop", "partial", "steps", "words", "judge",
                   "verdict / flags"):
        table.add_column(column)
    for report in reports:
        table.add_row(*_row(report))
    console.print(table)
    failed = sum(not r.ok for r in reports)
    flagged = sum(r.ok and bool(r.flags) for r in reports)
    console.print(f"{len(reports) - failed} passed ({flagged} flagged), {failed} failed — "
                  f"report: {out / 'check.json'}", highlight=False)
    if manifest is not None:
        digest = update_manifest(manifest, reports)
        console.print(f"manifest updated: {manifest} ({digest})", highlight=False)
    if failed:
        raise typer.Exit(1)
