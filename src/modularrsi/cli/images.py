"""``modularrsi images list|bootstrap``: the base images tasks need, and building them offline."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table

from modularrsi.engines.engine import EngineError, find_engine, require_engine
from modularrsi.engines.images import bootstrap, list_needs
from modularrsi.tasks.model import discover

app = typer.Typer(no_args_is_help=True, help="Base images of Dockerfile-built tasks, built offline from Debian.")
ENGINE = Annotated[str | None, typer.Option("--engine", help="podman or docker (default: the first that answers).")]


def _fail(message: str) -> typer.Exit:
    Console(stderr=True).print(f"error: {message}", markup=False, highlight=False, soft_wrap=True)
    return typer.Exit(2)


@app.command("list")
def list_command(tasks: Annotated[list[Path], typer.Argument(help="Tasks or directories of tasks.")],
                 engine: ENGINE = None) -> None:
    """The images these tasks need (bases, COPY --from images, compose services', a separate verifier's):
    which the engine has, which are missing, and why each missing one can or cannot be built here."""
    try:
        found = find_engine(engine)
        needs = list_needs(discover([p.resolve() for p in tasks]), found)
    except (OSError, ValueError) as exc:
        raise _fail(str(exc)) from None
    table = Table(title=f"images the tasks need ({found.name if found else 'no engine answers here'})")
    for column in ("image", "tasks", "named by", "status"):
        table.add_column(column, overflow="fold")
    for need in needs:
        named = "; ".join(need.uses[:2]) + (f"; +{len(need.uses) - 2} more" if len(need.uses) > 2 else "")
        table.add_row(need.image, str(len(need.tasks)), named, need.status)
    Console(width=200 if not Console().is_terminal else None).print(table)
    if found is None:
        raise _fail("no container engine answers here; run scripts/engine-setup.sh as root")


@app.command("bootstrap")
def bootstrap_command(names: Annotated[list[str], typer.Argument(help="Image names exactly as tasks use them.")],
                      engine: ENGINE = None,
                      trust_host_ca: Annotated[bool, typer.Option(
                          "--trust-host-ca", help="Copy this host's CA bundle into the image (and pip's config), "
                          "for networks that intercept TLS.")] = False) -> None:
    """Build Debian-family base images from Debian's archive (debootstrap) and tag them under these names."""
    try:
        done = bootstrap(names, require_engine(engine), trust_host_ca)
    except EngineError as exc:
        raise _fail(str(exc)) from None
    for name, what in done.items():
        Console().print(f"{name}: {what}", markup=False, highlight=False)
