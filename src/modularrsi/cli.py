"""The ``modularrsi`` command: a thin typer layer that builds config and calls the library."""

from __future__ import annotations

import asyncio
import datetime as dt
import logging
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table

from modularrsi.offline import apply_offline_defaults

app = typer.Typer(no_args_is_help=True, add_completion=False,
                  help="Evolve an agent harness from its own execution experience, module by module.")
tasks_app = typer.Typer(no_args_is_help=True, help="Work with task pools (Harbor format).")
app.add_typer(tasks_app, name="tasks")
console = Console()
err = Console(stderr=True)


def _fail(message: str) -> typer.Exit:
    err.print(f"[red]error:[/red] {message}", highlight=False)
    return typer.Exit(2)


def _stamp() -> str:
    return dt.datetime.now(dt.UTC).strftime("%Y%m%d-%H%M%S")


@tasks_app.command("validate")
def tasks_validate(
    paths: Annotated[list[Path], typer.Argument(help="Task directories or directories of tasks.")],
    concurrency: Annotated[int, typer.Option("-n", "--concurrency", help="Tasks validated at once.")] = 4,
    env: Annotated[str, typer.Option("--env", help="local, a Harbor environment type, or module:Class.")
                   ] = "local",
    out: Annotated[Path | None, typer.Option("--out", help="Where trials and validation.json go.")] = None,
) -> None:
    """Oracle must get reward 1 and a do-nothing agent 0 on every task; exit 1 otherwise."""
    from modularrsi.tasks.model import discover
    from modularrsi.tasks.trials import environment_config
    from modularrsi.tasks.validate import ValidationRow, validate_tasks

    try:
        task_dirs = discover([p.resolve() for p in paths])
        environment = environment_config(env)
    except (FileNotFoundError, ValueError) as exc:
        raise _fail(str(exc)) from None
    if not task_dirs:
        raise _fail(f"no tasks found under {', '.join(map(str, paths))}")
    out = (out or Path("runs") / f"validate-{_stamp()}").resolve()

    def done(row: ValidationRow) -> None:
        mark = "[green]ok[/green]" if row.ok else "[red]FAIL[/red]"
        console.print(f"{mark} {row.task}" + ("" if row.ok else f" — {row.problem}"), highlight=False)

    with console.status(f"validating {len(task_dirs)} tasks (oracle + nop) in {env} …"):
        rows = asyncio.run(validate_tasks(task_dirs, out, environment, concurrency, done))
    table = Table(title="Task validation")
    for column in ("task", "oracle", "nop", "seconds", "verdict"):
        table.add_column(column)
    fmt = lambda v: "—" if v is None else f"{v:g}"  # noqa: E731
    for row in rows:
        table.add_row(row.task, fmt(row.oracle), fmt(row.nop), f"{row.seconds:.1f}",
                      "[green]ok[/green]" if row.ok else f"[red]{row.problem}[/red]")
    console.print(table)
    failed = sum(not r.ok for r in rows)
    console.print(f"{len(rows) - failed} passed, {failed} failed — report: {out / 'validation.json'}")
    if failed:
        raise typer.Exit(1)


def main() -> None:
    apply_offline_defaults()
    logging.getLogger("harbor").setLevel(logging.WARNING)
    app()


if __name__ == "__main__":
    main()
