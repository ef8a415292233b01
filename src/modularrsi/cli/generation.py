"""``modularrsi generation new|check``: a generation of your own to edit, check and seal (registered by
``modularrsi.cli``; the library is :mod:`modularrsi.harness.generation_tools`, imported when a command runs:
importing anything under ``harness/`` loads Harbor, which would slow every ``modularrsi`` start)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.markup import escape

from modularrsi.cli.common import console, err, fail
from modularrsi.util.errors import EXIT_USER, UserError

app = typer.Typer(no_args_is_help=True, help="A generation of your own: copy one to edit, then check and seal it.")
GEN_0 = "gen_0"


def _source(value: Path | None) -> Path:
    """``--from``: a generation directory; ``gen_0`` (or nothing) is the shipped Terminus-2 generation."""
    from modularrsi.harness import BASELINE

    if value is None or (str(value) == GEN_0 and not value.exists()):
        return BASELINE
    if not (value / "manifest.json").is_file() and (value / "frozen" / "manifest.json").is_file():
        raise UserError(f"{value}: a run directory, not a generation; its frozen library is {value / 'frozen'}")
    return value


def _gate_checks():
    """What the evolution's static gate checks beyond the loader: its banned constructs (default rules)."""
    from modularrsi.evolve.gates.constructs import construct_problems
    from modularrsi.evolve.gates.static import StaticConfig

    rules = StaticConfig().rules
    return [lambda tree: construct_problems(tree, rules)]


def _sidecars() -> tuple[str, ...]:
    """Files a generation may carry beside its manifest: what a frozen library evolved on."""
    from modularrsi.evolve.overlap import FILE

    return (FILE,)


@app.command("new")
def new(
    directory: Annotated[Path, typer.Argument(help="Directory to create (absent or empty).")],
    source: Annotated[Path | None, typer.Option("--from", help="Generation to copy: a generation directory "
                                                "(e.g. RUN/frozen) or gen_0.", show_default="gen_0")] = None,
) -> None:
    """Copy a generation to edit: its function files and a sealed manifest naming it as the parent."""
    from modularrsi.harness.generation_tools import new_generation

    try:
        origin = _source(source)
        gen = new_generation(directory, origin, _sidecars())
    except UserError as exc:
        raise fail(str(exc)) from None
    from modularrsi.harness import BASELINE

    shown = GEN_0 if origin == BASELINE else str(origin)
    console.print(f"{directory}: a copy of {shown} ({gen.manifest.parents[0]}) with {len(gen.functions)} functions "
                  f"in {directory / 'modules'}/", highlight=False, markup=False, soft_wrap=True)
    console.print(f"next: edit or add modules/<module>/<name>.py, list new names under \"active\" in "
                  f"{directory / 'manifest.json'}, then: modularrsi generation check {directory}",
                  highlight=False, markup=False, soft_wrap=True)


@app.command("check")
def check(directory: Annotated[Path, typer.Argument(help="Generation directory to check and seal.")]) -> None:
    """The evolution's static checks on every function file and the manifest; if all pass, seal the manifest's
    hashes and id for the files present. One line per problem (exit 2), else a summary (exit 0)."""
    from modularrsi.harness.generation_tools import check_generation

    result = check_generation(directory, _gate_checks(), _sidecars())
    if result.problems:
        for line in result.problems:
            err.print(f"[red]error:[/red] {escape(line)}", highlight=False, soft_wrap=True)
        raise typer.Exit(EXIT_USER)
    console.print(result.summary(), highlight=False, markup=False, soft_wrap=True)
