"""Attempts an eval takes from other evals (``modularrsi eval --share-from DIR``): several candidates compared
with one baseline pay for the baseline once, and an evaluation re-run on a larger task selection pays only for
the tasks it adds.

Before a side runs, each of its planned attempts it has not finished is looked for in the other eval
directories (``modularrsi eval``'s ``--out``, or an evolution run's ``eval/``), in the order given, on a side
that ran the same generation with the same draws: the agent's model and call settings, the environment, the
turn limit, the timeout multiplier and the run seed (:data:`DRAWN`), the same attempt seed and the same task
content (Harbor's digest of the task directory, recorded in each trial's lock). A finished trial found so is
copied in whole, and the runner reuses it as its own; the source side's response cache is merged into this
side's (its keys name the attempt that asked), so a baseline attempt taken so is replayed by a candidate
attempt run here, as if the baseline had run here.

The candidate side takes an attempt only from an eval whose baseline attempt is the one this eval's baseline
has (the same ``result.json``): a candidate attempt is coupled to the baseline attempt it replayed, and that
pairing is kept. A copied attempt is the same draw, so each side is still distributed as if run here and the
tests stay valid (docs/evolve.md).
"""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path
from typing import Any

from modularrsi.models.cache import SCHEMA
from modularrsi.rollouts.config import RunConfig
from modularrsi.rollouts.runner import Job, read_finished
from modularrsi.util.errors import UserError
from modularrsi.util.files import write_json
from modularrsi.util.runcopy import copy_run

#: The run settings that decide an attempt's draw, beside its generation, task and attempt seed.
DRAWN = frozenset({"model", "env", "env_kwargs", "seed", "max_turns", "timeout_multiplier", "agent",
                   "agent_kwargs", "cache"})
SIDES = ("baseline", "candidate")
SHARED = "shared.json"  # in a side's run directory: the attempts it took, and from where


def drawn(config: RunConfig) -> dict[str, Any]:
    view = config.model_dump(mode="json", include=set(DRAWN))
    view["agent_settings"] = config.role("agent").model_dump(mode="json")
    return view


def check_sources(others: list[Path], out: Path) -> None:
    """Refuse (one line) a source that is this eval or no eval directory."""
    for other in others:
        if Path(other).resolve() == Path(out).resolve():
            raise UserError(f"share_from: {other} is this eval itself; name another eval directory")
        if not any((Path(other) / side / "lock.json").is_file() for side in SIDES):
            raise UserError(f"share_from: {other}: no eval directory there (no baseline/ or candidate/ run with a "
                            "lock.json); name the --out of `modularrsi eval` or an evolution run's eval/")


def _generation(side: Path) -> str | None:
    lock = side / "lock.json"
    return json.loads(lock.read_text()).get("generation") if lock.is_file() else None


def _trial_lock(trial: Path) -> dict:
    try:
        return json.loads((trial / "lock.json").read_text())
    except (OSError, ValueError):
        return {}


def task_digest(task_dir: Path) -> str:
    """Harbor's content digest of a task directory, as a trial's lock records it."""
    from harbor.publisher.packager import Packager

    return f"sha256:{Packager.compute_content_hash(task_dir)[0]}"


def take(side: str, config: RunConfig, generation_id: str, jobs: list[Job], own: Path,
         others: list[Path]) -> int:
    """Copy into the run directory ``own`` (this eval's ``side``) the finished attempts of ``jobs`` it lacks that
    another eval made with the same draws, and name their sources in ``own/shared.json``; returns how many
    were copied."""
    mine = drawn(config)
    sources = []
    for other in others:
        theirs = Path(other) / side
        if _generation(theirs) != generation_id or not (theirs / "config.yaml").is_file():
            continue
        if drawn(RunConfig.load(theirs / "config.yaml")) == mine:
            sources.append(Path(other))
    digests: dict[str, str] = {}
    merged: set[Path] = set()
    taken = taken_from(own)
    for job in jobs:
        if read_finished(own / "trials" / job.trial_name) is not None:
            continue
        for other in sources:
            trial = other / side / "trials" / job.trial_name
            lock = _trial_lock(trial)
            if (read_finished(trial) is None or lock.get("agent", {}).get("kwargs", {}).get("seed") != job.seed
                    or side == "candidate" and not _same_baseline(other, own.parent, job.trial_name)):
                continue
            if job.name not in digests:
                digests[job.name] = task_digest(Path(str(job.task.path)))
            if lock.get("task", {}).get("digest") != digests[job.name]:
                continue
            target = own / "trials" / job.trial_name
            if target.exists():  # an unfinished attempt of this run: the copy replaces it
                shutil.rmtree(target)
            copy_run(trial, target)
            if other not in merged:
                merge_cache(other / side / "cache.sqlite", own / "cache.sqlite")
                merged.add(other)
            taken[job.trial_name] = str(other)
            write_json(own / SHARED, taken)
            break
    return len(taken)


def taken_from(own: Path) -> dict[str, str]:
    """The attempts of the run directory ``own`` that were copied from other evals: trial -> source eval."""
    try:
        return json.loads((own / SHARED).read_text())
    except (OSError, ValueError):
        return {}


def _same_baseline(other: Path, out: Path, trial: str) -> bool:
    """Whether ``other``'s baseline attempt ``trial`` is this eval's (the same result, byte for byte)."""
    try:
        return ((other / "baseline" / "trials" / trial / "result.json").read_bytes()
                == (out / "baseline" / "trials" / trial / "result.json").read_bytes())
    except OSError:
        return False


def merge_cache(source: Path, target: Path) -> None:
    """Every reply of the response cache ``source`` that ``target`` lacks, into ``target`` (created if need be)."""
    if not source.is_file():
        return
    target.parent.mkdir(parents=True, exist_ok=True)
    db = sqlite3.connect(target.resolve().as_uri(), uri=True, isolation_level=None)
    try:
        db.execute("PRAGMA journal_mode=WAL")
        db.execute(SCHEMA)
        db.execute("ATTACH DATABASE ? AS other", (f"{source.resolve().as_uri()}?mode=ro",))
        db.execute("INSERT OR IGNORE INTO responses SELECT key, model, content, input_tokens, output_tokens, "
                   "cost_usd FROM other.responses")
        db.execute("DETACH DATABASE other")
    finally:
        db.close()
