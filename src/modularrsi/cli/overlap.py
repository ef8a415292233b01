"""``modularrsi tasks overlap POOL... --against SPEC``: screen an evolution pool against benchmark instances.

Thin: parses flags, calls :mod:`modularrsi.tasks.overlap`, prints a table, writes ``overlap.json`` and (for one
pool directory, or with ``--manifest``) records overlap exclusions in the pool manifest. Overlaps are findings:
exit 0. Bad input (unreadable JSONL line, empty pool or spec, unknown backend, missing model package) is one
line on stderr and exit 2.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.markup import escape
from rich.table import Table

from modularrsi.cli.common import console, fail, stamp
from modularrsi.tasks.embeddings import BACKENDS, DEFAULT_THRESHOLDS, EmbeddingUnavailable, make_embedder
from modularrsi.tasks.overlap import OverlapReport, build_report, load_pool, load_spec, screen, update_manifest
from modularrsi.util.errors import UserError
from modularrsi.util.files import write_json


def _default_manifest(pool: list[Path]) -> Path | None:
    """``POOL/manifest.json`` when the pool is one directory of tasks (not a single task), else ``None``."""
    if len(pool) == 1 and pool[0].is_dir() and not (pool[0] / "task.toml").is_file():
        return pool[0] / "manifest.json"
    return None


def _print(report: OverlapReport) -> None:
    table = Table(title=f"Pool vs {report.spec_size} benchmark instances — {report.embedder}, "
                        f"threshold {report.threshold:g}")
    for column in ("task", "best neighbour", "score", "overlap?"):
        table.add_column(column, justify="right" if column == "score" else "left")
    for row in report.tasks:
        table.add_row(escape(row.task), escape(row.best.id), f"{row.best.score:.3f}",
                      "[red]OVERLAP[/red]" if row.overlap else "[green]no[/green]")
    console.print(table)


def command(
    pool: Annotated[list[Path], typer.Argument(help="Pool directories of Harbor tasks (or single tasks).")],
    against: Annotated[list[Path], typer.Option("--against", help="Benchmark: a directory of Harbor tasks or a "
                                                "JSONL of {\"id\", \"instruction\"}; repeatable.")],
    backend: Annotated[str, typer.Option("--backend", help=f"Embedding backend: {', '.join(BACKENDS)}.")
                       ] = "lexical",
    threshold: Annotated[float | None, typer.Option("--threshold", help="Overlap when the best cosine >= this "
                         "(default per backend: " + ", ".join(f"{k} {v:g}" for k, v in DEFAULT_THRESHOLDS.items())
                         + ").")] = None,
    top: Annotated[int, typer.Option("--top", help="Benchmark neighbours kept per task.")] = 3,
    out: Annotated[Path | None, typer.Option("--out", help="Where overlap.json goes (default runs/overlap-<time>).")
                   ] = None,
    manifest: Annotated[Path | None, typer.Option("--manifest", help="Pool manifest to record exclusions in "
                        "(default POOL/manifest.json for one pool directory).")] = None,
    no_manifest: Annotated[bool, typer.Option("--no-manifest", help="Do not touch any manifest.")] = False,
    embedding_model: Annotated[str | None, typer.Option("--embedding-model", help="api backend: LiteLLM model "
                               "name, e.g. openai/text-embedding-3-small.")] = None,
    api_base: Annotated[str | None, typer.Option("--api-base", help="api backend: OpenAI-compatible base URL.")
                        ] = None,
    api_key_env: Annotated[str | None, typer.Option("--api-key-env", help="api backend: environment variable "
                           "holding the key.")] = None,
) -> None:
    """Each pool task's nearest benchmark instances by instruction similarity; overlaps are excluded in the
    manifest. Exit 0 whether or not there are overlaps; 2 on bad input."""
    try:
        embedder = make_embedder(backend, model=embedding_model, api_base=api_base, api_key_env=api_key_env)
        cutoff = DEFAULT_THRESHOLDS[backend] if threshold is None else threshold
        tasks = load_pool(pool)
        spec = load_spec(against)
        with console.status(f"embedding {len(tasks)} tasks and {len(spec)} benchmark instances ({embedder.name}) …"):
            results = screen(tasks, spec, embedder, cutoff, top)
    except (UserError, EmbeddingUnavailable) as exc:
        raise fail(str(exc)) from None
    report = build_report(results, backend=backend, embedder=embedder, threshold=cutoff, top=top, pool=pool,
                          against=against, spec_size=len(spec))
    out = out or Path("runs") / f"overlap-{stamp()}"
    write_json(out / "overlap.json", report.model_dump(mode="json"))
    _print(report)
    console.print(f"{len(report.overlapping)} of {report.pool_size} tasks overlap — report: {out / 'overlap.json'}")
    target = None if no_manifest else (manifest or _default_manifest(pool))
    if target is not None:
        try:
            excluded, lifted, digest = update_manifest(target, report, tasks)
        except UserError as exc:
            raise fail(str(exc)) from None
        console.print(f"manifest {target}: {excluded} overlap exclusions, {lifted} lifted ({digest[:19]})")
