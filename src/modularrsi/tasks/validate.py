"""``tasks validate``: the oracle must be rewarded 1 and a do-nothing agent 0, on every task.

The core of ``tasks check`` (:mod:`modularrsi.tasks.check`) and nothing more: its evaluator with one
oracle run and no probe (partial solution, forgery), over the same per-task runner. Both agents run as real Harbor
trials (LocalSandbox by default), many tasks at once. A task that cannot be loaded, or whose verifier
writes no reward, is reported on one line naming the task and the problem; the other tasks still run.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path

from harbor.models.trial.config import EnvironmentConfig

from modularrsi.tasks.check import CheckConfig, check_evaluator, for_each_task
from modularrsi.tasks.model import TaskError, load_task
from modularrsi.util.files import write_json

#: One oracle run per task (``tasks check --repeats`` asks for more).
ONE_ORACLE = CheckConfig(repeats=1)


@dataclass
class ValidationRow:
    """One task's verdict."""

    task: str
    path: str
    oracle: float | None = None
    nop: float | None = None
    problem: str | None = None
    seconds: float = 0.0

    @property
    def ok(self) -> bool:
        return self.problem is None


async def validate_task(path: Path, out: Path, environment: EnvironmentConfig | str) -> ValidationRow:
    row = ValidationRow(task=path.name, path=str(path))
    started = time.monotonic()
    try:
        load_task(path)
    except TaskError as exc:
        row.problem = str(exc)
        return row
    evaluator = await check_evaluator(path, ONE_ORACLE, out / "trials", environment, probes=False)
    row.oracle, row.nop = evaluator.oracle[0], evaluator.nop
    row.problem = None if evaluator.ok else evaluator.reason
    row.seconds = round(time.monotonic() - started, 2)
    return row


async def validate_tasks(paths: list[Path], out: Path, environment: EnvironmentConfig | str,
                         concurrency: int = 4,
                         on_done: Callable[[ValidationRow], None] | None = None) -> list[ValidationRow]:
    """Validate every task (``concurrency`` tasks at a time); write ``validation.json`` to ``out``."""
    out.mkdir(parents=True, exist_ok=True)
    started = time.monotonic()
    rows = await for_each_task(paths, concurrency, lambda p: validate_task(p, out, environment),
                               lambda p, reason: ValidationRow(p.name, str(p), problem=reason), on_done)
    write_json(out / "validation.json", {
        "tasks": [asdict(r) | {"ok": r.ok} for r in rows],
        "passed": sum(r.ok for r in rows), "failed": sum(not r.ok for r in rows),
        "wall_seconds": round(time.monotonic() - started, 2)})
    return rows
