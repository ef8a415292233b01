"""Rollouts shared with another evolution run (``share_from``): two runs that differ only in a role - the
two editor arms of a comparison - start from the same draws.

A run with ``share_from: OTHER`` takes from OTHER, before it would make them itself:

- each rollout directory of a (generation, seed) OTHER has (``samples/<generation>-s<seed>``: the epoch
  samples and the execution gates' parent sides), copied in whole; the runner then reuses its finished
  attempts and makes only the ones it lacks;
- OTHER's held-out baseline side (``eval/baseline``), when both started from the same generation;
- OTHER's role replies (its ``cache.sqlite``), copied once into the empty cache of a new run, so an identical
  analyst or reviewer request gets the identical reply.

A model's reply is a draw; a copied attempt is the same draw both runs then judge from, so the runs are paired
(common random numbers) where they ask the same thing and independent where they do not. Only a run with the
same agent and trial settings, tasks, seed and held-out tasks can share (:func:`check_shareable`); copies are
made with :func:`~modularrsi.util.runcopy.copy_run` (consistent while OTHER still writes).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from modularrsi.rollouts.config import INHERITED
from modularrsi.util.errors import UserError
from modularrsi.util.runcopy import copy_run, sqlite_snapshot

if TYPE_CHECKING:
    from modularrsi.evolve.config import EvolveConfig

#: Settings that do not change what a trial draws (how many run at once, spending caps).
NOT_DRAWN = frozenset({"concurrency", "max_tokens", "max_cost_usd", "roles"})


def drawn_settings(config: EvolveConfig) -> dict[str, Any]:
    """What decides the draws of ``config``'s rollouts: trial settings, agent, tasks, seed, held-out tasks."""
    view = config.model_dump(mode="json", include=set(INHERITED - NOT_DRAWN))
    view.update(agent=config.role("agent").model_dump(mode="json"), tasks=_resolved(config.tasks),
                manifest=_resolved([config.manifest]), eval_tasks=_resolved(config.eval_tasks), eval_k=config.eval_k,
                eval_manifest=_resolved([config.eval_manifest]), generation=_resolved([config.generation]))
    return view


def _resolved(paths: list[Path | None]) -> list[str | None]:
    return [str(Path(p).resolve()) if p is not None else None for p in paths]


def check_shareable(config: EvolveConfig, run_dir: Path) -> None:
    """Refuse (one line) a ``share_from`` that is no evolution run or draws with other settings."""
    from modularrsi.evolve.config import EvolveConfig

    other = config.share_from
    if other is None:
        return
    if Path(other).resolve() == run_dir.resolve():
        raise UserError(f"share_from: {other} is this run itself; name the other run's directory")
    if not (Path(other) / "config.yaml").is_file():
        raise UserError(f"share_from: {other}: no evolution run there (no config.yaml); name a run directory "
                        "of `modularrsi evolve`")
    mine, theirs = drawn_settings(config), drawn_settings(EvolveConfig.load(Path(other) / "config.yaml"))
    differ = [key for key in mine if mine[key] != theirs.get(key)]
    if differ:
        raise UserError(f"share_from: {other} draws with another {differ[0]} ({theirs.get(differ[0])!r}, here "
                        f"{mine[differ[0]]!r}); only a run with the same agent, trial settings, tasks, seed and "
                        "held-out tasks can share its rollouts")


def take(config: EvolveConfig, own_root: Path, own: Path) -> bool:
    """Copy OTHER's counterpart of ``own`` (a path inside this run) when this run has none yet; True if copied."""
    if config.share_from is None or own.exists():
        return False
    theirs = Path(config.share_from) / own.relative_to(own_root)
    if not theirs.is_dir():
        return False
    copy_run(theirs, own)
    return True


def take_baseline(config: EvolveConfig, own_root: Path, own_baseline: Path) -> bool:
    """OTHER's held-out baseline side, when both runs started from the same generation."""
    if config.share_from is None or _start(own_root) != _start(Path(config.share_from)):
        return False
    return take(config, own_root, own_baseline)


def _start(run: Path) -> str | None:
    """The id of the generation an evolution run started from (its ``lock.json``)."""
    lock = run / "lock.json"
    return json.loads(lock.read_text()).get("start") if lock.is_file() else None


def take_replies(config: EvolveConfig, own_cache: Path) -> bool:
    """OTHER's role replies into this run's cache, once (a new run's; a cache that exists is never touched)."""
    theirs = None if config.share_from is None else Path(config.share_from) / own_cache.name
    if theirs is None or own_cache.exists() or not theirs.is_file():
        return False
    sqlite_snapshot(theirs, own_cache)
    return True
