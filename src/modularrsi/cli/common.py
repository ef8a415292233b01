"""What every ``modularrsi`` command shares: one console, one error path, and the way a run command
turns flags into a config and a run directory (new, or resumed from its own ``config.yaml``)."""

from __future__ import annotations

import datetime as dt
import importlib
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import click
import typer
from rich.console import Console
from rich.markup import escape
from typer.core import TyperCommand, TyperGroup

from modularrsi.util.errors import EXIT_STOPPED, EXIT_USER, Stopped, UserError
from modularrsi.util.files import write_yaml
from modularrsi.util.jsontypes import Options

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
    return typer.Exit(EXIT_USER)


#: Help panels: every command that runs trials groups its options the same way.
TASKS, MODEL, ATTEMPTS, BUDGET, RUN_DIR = "Tasks", "Model", "Attempts and environment", "Budget", "Run directory"
#: The settings a resumed run may change beside ``--resume``: its spending caps (to continue after a stop).
CAPS = ("max_tokens", "max_cost_usd")


def described(model: type, field: str, text: str | None = None) -> str:
    """An option's help: ``text`` (default: the settings field's own description) and, when it has one, the
    field's default as the settings model declares it (never typed into a help string)."""
    info = model.model_fields[field]
    default = info.get_default(call_default_factory=True)
    shown = "" if default is None or default == [] or default == {} else f" (default {default})"
    return f"{text or info.description}{shown}"


def stamp() -> str:
    return dt.datetime.now(dt.UTC).strftime("%Y%m%d-%H%M%S")


def given(flags: Options) -> Options:
    """The flags a user gave on the command line: None, False and empty lists are flags left out."""
    return {k: v for k, v in flags.items() if v is not None and v is not False and v != []}


def refuse_with_resume(resume: Path | None, flags: Options) -> None:
    """``--resume`` continues a run with its own ``config.yaml``: any other setting given is an error (the
    spending caps, :data:`CAPS`, are not among ``flags``: a resumed run may raise them)."""
    others = given(flags)
    if resume is not None and others:
        raise UserError(f"--resume continues {resume} with its own config.yaml; drop {', '.join(others)} "
                        "(edit that file to change a setting; only --max-tokens and --max-cost may be given)")


def raise_caps[C](load: Callable[[Path | None, Options], C], caps: Options
                  ) -> Callable[[C, Path], C]:
    """``open_run``'s ``on_resume`` for a run resumed with new spending caps: they go into its config.yaml."""
    def on_resume(cfg: C, run_dir: Path) -> C:
        chosen = {k: v for k, v in caps.items() if k in CAPS and v is not None}
        if not chosen:
            return cfg
        cfg = load(run_dir / "config.yaml", chosen)
        write_yaml(run_dir / "config.yaml", cfg.dump())  # type: ignore[attr-defined]
        return cfg

    return on_resume


def open_run[C](load: Callable[[Path | None, Options], C], *, config: Path | None, flags: Options,
                out: Path | None, resume: Path | None, prefix: str, what: str = "a run directory",
                on_resume: Callable[[C, Path], C] | None = None) -> tuple[C, Path]:
    """Flags → config → run directory. New: ``config`` (a YAML file) with ``flags`` (those not None) on top, in ``out``
    (default ``runs/<prefix>-<time>``), which must not hold a run yet. ``resume``: the run directory's
    own ``config.yaml`` (``what`` names such a directory in the error); ``on_resume`` may adjust it."""
    if resume is not None:
        if not (resume / "config.yaml").is_file():
            raise UserError(f"{resume}: not {what} (no config.yaml)")
        cfg = load(resume / "config.yaml", {})
        return (on_resume(cfg, resume) if on_resume else cfg), resume
    run_dir = out or Path("runs") / f"{prefix}-{stamp()}"
    if (run_dir / "config.yaml").exists():
        verb = "finish" if prefix == "run" else "continue"
        raise UserError(f"{run_dir}: exists already; use --resume {run_dir} to {verb} it")
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


class Commands(TyperGroup):
    """The ``modularrsi`` command group: every command ends in one of the ways of
    :mod:`modularrsi.util.errors` — a :class:`UserError` as one line and exit 2, a :class:`Stopped` run as
    one line and exit 3, anything else (a bug) with its traceback and exit 1."""

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except UserError as exc:
            raise fail(str(exc)) from None
        except Stopped as exc:
            err.print(f"[yellow]stopped:[/yellow] {escape(str(exc))}", highlight=False, soft_wrap=True)
            raise typer.Exit(EXIT_STOPPED) from None


def later(field: str, text: str | None = None) -> str:
    """The help of an option whose settings model is slow to import: :func:`described` is filled in by
    :func:`settings_command` when the command runs or shows its help, not when ``modularrsi`` starts."""
    return f"\0{field}\0{text or ''}"


def settings_command(path: str) -> type[SpreadCommand]:
    """A command class whose :func:`later` helps come from the settings model at ``module:Class``."""

    class Command(SpreadCommand):
        def get_params(self, ctx: click.Context) -> list[click.Parameter]:
            params = super().get_params(ctx)
            pending = [p for p in params if (getattr(p, "help", None) or "").startswith("\0")]
            if pending:
                module, _, name = path.partition(":")
                model = getattr(importlib.import_module(module), name)
                for param in pending:
                    field, _, text = param.help.strip("\0").partition("\0")
                    param.help = described(model, field, text or None)
            return params

    return Command
