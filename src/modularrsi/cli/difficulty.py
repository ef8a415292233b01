"""``modularrsi tasks difficulty``: a thin typer command over :mod:`modularrsi.rollouts.difficulty`."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Annotated

import typer
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from modularrsi.cli.common import console, fail
from modularrsi.tasks.trials import ENV_HELP
from modularrsi.util.errors import UserError
from modularrsi.util.settings import option_error


class ModelProgress:
    """One progress bar per model; shows passes and reused trials (an observer, never changes state)."""

    def __init__(self, progress: Progress):
        self.progress = progress
        self.bars: dict[str, tuple[object, list[int]]] = {}

    def __call__(self, event: str, data: dict) -> None:
        model = data["model"]
        if event == "model":
            self.bars[model] = (self.progress.add_task(model, total=None, stats=""), [0, 0])
        elif model in self.bars and event in ("planned", "finished"):
            bar, counts = self.bars[model]
            if event == "planned":
                self.progress.update(bar, total=data["attempts"])
                return
            counts[0] += int(data["attempt"].passed)
            counts[1] += int(data["reused"])
            self.progress.update(bar, advance=1, stats=f"pass {counts[0]} · reused {counts[1]}")


def default_manifest(pools: list[Path]) -> Path:
    """``POOL/manifest.json`` for one directory of tasks; otherwise ``--manifest`` is required."""
    if len(pools) != 1 or (pools[0] / "task.toml").is_file() or not pools[0].is_dir():
        raise UserError(f"give --manifest FILE: the default POOL/manifest.json needs exactly one directory of "
                        f"tasks, got {', '.join(map(str, pools))}")
    return pools[0] / "manifest.json"


def default_out(pools: list[Path]) -> Path:
    """A fixed place per pool set, so that running the same command again resumes."""
    return Path("runs") / ("difficulty-" + "+".join(p.resolve().name for p in pools))


def command(
    pools: Annotated[list[Path], typer.Argument(help="Task directories or directories of tasks.")],
    models: Annotated[str | None, typer.Option("--models", "-m", help="Comma-separated models: sim, sim:perfect, "
                                               "scripted:FILE.json, or LiteLLM names (default: the --config's "
                                               "agent model, else sim).")] = None,
    settings: Annotated[Path | None, typer.Option("--config", help="Run settings (YAML, as for `run`) every "
                                                "model's run starts from: endpoint, key variable, temperature, "
                                                "max_turns, timeout_multiplier.")] = None,
    attempts: Annotated[int, typer.Option("-k", "--attempts", help="Attempts per task and model.")] = 8,
    manifest: Annotated[Path | None, typer.Option("--manifest", help="Pool manifest (default POOL/manifest.json "
                                                  "when one POOL is given).")] = None,
    concurrency: Annotated[int, typer.Option("-n", "--concurrency",
                                             help="Attempts at once, shared by all models.")] = 8,
    out: Annotated[Path | None, typer.Option("--out", help="Run directories, one per model (default "
                                             "runs/difficulty-<pool>); the same --out resumes.")] = None,
    seed: Annotated[int, typer.Option("--seed", help="Run seed.")] = 0,
    env: Annotated[str, typer.Option("--env", help=ENV_HELP)] = "auto",
) -> None:
    """Measure each task's success rate over several models; store it in the pool manifest."""
    from pydantic import ValidationError

    from modularrsi.rollouts.config import RunConfig
    from modularrsi.rollouts.difficulty import DifficultyConfig, measure, parse_models

    try:
        template = RunConfig.load(settings) if settings else RunConfig()
        names = models or (template.roles.agent.model if template.roles else template.model)
        config = DifficultyConfig(pools=pools, models=parse_models(names), n=attempts, concurrency=concurrency,
                                  out=out or default_out(pools), manifest=manifest or default_manifest(pools),
                                  seed=seed, env=env, template=template)
        progress = Progress(TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(),
                            TimeElapsedColumn(), TextColumn("{task.fields[stats]}"), console=console)
        with progress:
            report = asyncio.run(measure(config, [ModelProgress(progress)]))
    except ValidationError as exc:
        raise fail(option_error(exc).replace("'n'", "'-k/--attempts'").replace("'concurrency'", "'-n/--concurrency'")
                   ) from None
    except UserError as exc:
        raise fail(str(exc)) from None
    from modularrsi.tasks.manifest import load_manifest

    print_table(report, load_manifest(config.manifest))
    for run in report.runs:
        carried = f"; {run.carried} tasks carried over in the manifest" if run.carried else ""
        console.print(f"{run.model}: {run.attempts} attempts ({run.reused} reused, {run.invalid} invalid: left "
                      f"out of the rates{carried}) in {run.run_dir}", highlight=False)
    console.print(f"manifest: {config.manifest} ({report.manifest_hash[:19]}…) — report: "
                  f"{config.out / 'difficulty.json'}", highlight=False)



def print_table(report, manifest) -> None:
    from modularrsi.models.settings import is_sim

    models = [r.model for r in report.runs]
    sim = " [yellow](sim: simulated — tests the machinery, not a real model)[/yellow]" \
        if any(is_sim(m) for m in models) else ""
    table = Table(title=f"Task success rates over {len(models)} models{sim}")
    for column in ("task", "category", *models, "pooled", "95% CI (Wilson)", "difficulty"):
        table.add_column(column)
    for name in report.tasks:
        entry = manifest.tasks[name]
        cells = []
        for model in models:
            s = entry.success.get(model, {})
            cells.append(f"{s['passes']}/{s['attempts']}" if s.get("attempts") else "—")
        rate, ci = entry.success_rate, entry.success_ci95
        table.add_row(name, entry.category, *cells, "—" if rate is None else f"{rate:.3f}",
                      f"[{ci[0]:.3f}, {ci[1]:.3f}]" if ci else "—", "—" if rate is None else f"{1 - rate:.0%}")
    console.print(table)
