"""``modularrsi report``, ``modularrsi runs`` and ``modularrsi show`` (registered by ``modularrsi.cli``)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from modularrsi.cli.common import console, fail
from modularrsi.util.errors import UserError


def report(
    run_dir: Annotated[Path, typer.Argument(help="An evolution, run or eval directory.")],
    out: Annotated[Path | None, typer.Option("--out", help="HTML file (default RUN_DIR/report.html).")] = None,
    serve: Annotated[bool, typer.Option("--serve", help="Serve the report on 127.0.0.1 until Ctrl-C.")] = False,
    port: Annotated[int, typer.Option("--port", help="Port for --serve (0: any free port).")] = 0,
) -> None:
    """Write one self-contained HTML report of a run directory (no network needed to view it)."""
    from modularrsi.report.render import write_report

    try:
        path = write_report(run_dir, out)
    except UserError as exc:
        raise fail(str(exc)) from None
    except OSError as exc:
        raise fail(f"{exc.filename or run_dir}: {exc.strerror or exc}") from None
    console.print(f"report: {path}", highlight=False, soft_wrap=True)
    if serve:
        from modularrsi.report.serve import serve as serve_file

        def ready(url: str) -> None:
            console.print(f"serving {url} on port {url.rsplit(':', 1)[1].strip('/')} — Ctrl-C stops", highlight=False)

        serve_file(path.resolve(), port, ready)


def runs(
    root: Annotated[Path, typer.Argument(help="Directory holding run directories.")] = Path("runs"),
) -> None:
    """List run directories: id, kind (evolve/run/eval), status, epochs, best Acc."""
    from modularrsi.report.terminal import runs_table

    if not root.is_dir():
        raise fail(f"{root}: no such directory")
    console.print(runs_table(root))


def show(
    run_dir: Annotated[Path, typer.Argument(help="An evolution, run or eval directory.")],
    once: Annotated[bool, typer.Option("--once", help="Print once, even while the run is in progress.")] = False,
) -> None:
    """Summarise a run in the terminal; live (every second) while it is running, until done or Ctrl-C."""
    from modularrsi.report.terminal import show as show_run

    try:
        show_run(run_dir, console, once=once)
    except UserError as exc:
        raise fail(str(exc)) from None
    except OSError as exc:
        raise fail(f"{exc.filename or run_dir}: {exc.strerror or exc}") from None
