"""What every ``modularrsi`` command shares: one console, one error path, and the way a run command
turns flags into a config and a run directory (new, or resumed from its own ``config.yaml``)."""

from __future__ import annotations

import datetime as dt
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import click
import typer
from rich.console import Console
from rich.markup import escape
from typer.core import TyperCommand

#: Width of tables and wrapped lines when the output is not a terminal (a pipe, a log file): wide
#: enough that a table is never cut, as rich's default of 80 columns would.
PIPE_WIDTH = 200

console = Console()
err = Console(stderr=True)


def fit_output() -> None:
    """Without a terminal (and without ``COLUMNS``), print at :data:`PIPE_WIDTH` columns."""
    for c, stream in ((console, sys.stdout), (err, sys.stderr)):
        if not stream.isatty() and "COLUMNS" not in os.environ:
            c.width = PIPE_WIDTH


def fail(message: str) -> typer.Exit:
    """Print ``error: message`` on stderr as one line; the caller raises the returned exit (code 2)."""
    err.print(f"[red]error:[/red] {escape(message)}", highlight=False, soft_wrap=True)
    return typer.Exit(2)


def stamp() -> str:
    return dt.datetime.now(dt.UTC).strftime("%Y%m%d-%H%M%S")


def given(flags: dict[str, Any]) -> dict[str, Any]:
    """The flags a user gave on the command line: None, False and empty lists are flags left out."""
    return {k: v for k, v in flags.items() if v is not None and v is not False and v != []}


def refuse_with_resume(resume: Path | None, flags: dict[str, Any]) -> None:
    """``--resume`` continues a run with its own ``config.yaml``: any other setting given is an error."""
    others = given(flags)
    if resume is not None and others:
        raise ValueError(f"--resume continues {resume} with its own config.yaml; drop {', '.join(others)} "
                         "(edit that file to change a setting)")


def open_run[C](load: Callable[[Path | None, dict[str, Any]], C], *, config: Path | None, flags: dict[str, Any],
                out: Path | None, resume: Path | None, prefix: str, what: str = "a run directory",
                on_resume: Callable[[C, Path], C] | None = None) -> tuple[C, Path]:
    """Flags → config → run directory. New: ``config`` (a YAML file) with ``flags`` (those not None) on top, in ``out``
    (default ``runs/<prefix>-<time>``), which must not hold a run yet. ``resume``: the run directory's
    own ``config.yaml`` (``what`` names such a directory in the error); ``on_resume`` may adjust it."""
    if resume is not None:
        if not (resume / "config.yaml").is_file():
            raise ValueError(f"{resume}: not {what} (no config.yaml)")
        cfg = load(resume / "config.yaml", {})
        return (on_resume(cfg, resume) if on_resume else cfg), resume
    run_dir = out or Path("runs") / f"{prefix}-{stamp()}"
    if (run_dir / "config.yaml").exists():
        verb = "finish" if prefix == "run" else "continue"
        raise ValueError(f"{run_dir}: exists already; use --resume {run_dir} to {verb} it")
    return load(config, {k: v for k, v in flags.items() if v is not None and v != []}), run_dir


def spread(args: list[str], options: tuple[str, ...]) -> list[str]:
    """``--tasks a b --k 3`` → ``--tasks a --tasks b --k 3``: each of ``options`` takes every value up to
    the next option (repeating the option works as well)."""
    out: list[str] = []
    current = None
    for arg in args:
        if arg.startswith("-"):
            current = arg if arg in options else None
            out.append(arg)
        elif current is not None and out[-1] != current:
            out += [current, arg]
        else:
            out.append(arg)
    return out


class SpreadCommand(TyperCommand):
    """A command whose list options (``--tasks``, ``--disjoint-from``) take several values after one flag."""

    many = ("--tasks", "--disjoint-from")

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        return super().parse_args(ctx, spread(args, self.many))
