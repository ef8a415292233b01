"""``modularrsi tasks select``: a thin typer command over :mod:`modularrsi.tasks.select`."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Annotated

import typer
from pydantic import ValidationError
from rich.table import Table

from modularrsi.cli.common import console, fail
from modularrsi.util.errors import UserError
from modularrsi.util.settings import option_error


def command(
    pool: Annotated[Path, typer.Argument(help="The pool directory (its manifest.json is the default manifest).")],
    distribution: Annotated[str, typer.Option("--distribution", "-d", help="medium-centered, hard-easy, uniform, "
                                              "or a JSON file with five percentages summing to 100.")
                            ] = "medium-centered",
    count: Annotated[int, typer.Option("--count", help="Tasks to select.")] = 120,
    balance: Annotated[str, typer.Option("--balance", help="Task field balanced within each bin, or 'none'.")
                       ] = "category",
    seed: Annotated[int, typer.Option("--seed", help="Selection seed.")] = 0,
    holdout_fraction: Annotated[float, typer.Option("--holdout-fraction", help="Share of the selection held "
                                                    "out (balanced like the rest).")] = 0.0,
    manifest: Annotated[Path | None, typer.Option("--manifest", help="Pool manifest (default POOL/manifest.json).")
                        ] = None,
    bins_by: Annotated[str, typer.Option("--bins-by", help="Field v binned as difficulty 1 - v: success_rate, "
                                         "success:MODEL, or another numeric task field.")] = "success_rate",
    allow_shortfall: Annotated[bool, typer.Option("--allow-shortfall", help="Fill a bin short of tasks from "
                                                  "the nearest bins instead of failing.")] = False,
) -> None:
    """Select n tasks to a difficulty distribution; record the selection and its splits in the manifest."""
    from modularrsi.tasks.manifest import load_manifest, save_manifest
    from modularrsi.tasks.select import SelectOptions, select_tasks

    path = manifest or pool / "manifest.json"
    if not path.is_file():
        raise fail(f"{path}: no pool manifest; run `modularrsi tasks difficulty {pool}` first")
    try:
        record = load_manifest(path)
        if not record.tasks:
            raise fail(f"{path}: the manifest lists no tasks; run `modularrsi tasks difficulty {pool}` first")
        options = SelectOptions(distribution=distribution, n=count, seed=seed, balance=balance,
                                holdout_fraction=holdout_fraction, bins_by=bins_by, allow_shortfall=allow_shortfall)
        record.selection = select_tasks(record, options)
    except ValidationError as exc:
        raise fail(option_error(exc)) from None
    except UserError as exc:
        raise fail(str(exc)) from None
    digest = save_manifest(path, record)
    print_selection(record)
    console.print(f"manifest: {path} ({digest[:19]}…)", highlight=False)


def print_selection(record) -> None:
    sel = record.selection
    table = Table(title=f"Selection: {sel.n} tasks, {sel.distribution}, balanced by {sel.balance}, seed {sel.seed}")
    for column in ("difficulty", "share", "target", "available", "selected", "holdout", "note"):
        table.add_column(column)
    notes = {}
    for item in sel.shortfall or []:
        sources = ", ".join(f"{count} from {label}" for label, count in item.filled_from.items())
        notes[item.bin] = f"short {item.missing}: {sources}"
    for b in sel.bins:
        table.add_row(b.label, f"{b.share:g} %", str(b.target), str(b.available), str(b.selected), str(b.holdout),
                      notes.get(b.label, ""))
    console.print(table)
    for split in ("train", "holdout"):
        names = getattr(sel, split)
        counts = Counter(record.tasks[t].category for t in names)
        spread = ", ".join(f"{c} {k}" for c, k in sorted(counts.items()))
        console.print(f"{split}: {len(names)} tasks" + (f" — {spread}" if names else ""), highlight=False)
