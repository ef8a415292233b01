"""``tasks validate``: the oracle must be rewarded 1 and a do-nothing agent 0, on every task.

Both run as real Harbor trials (LocalSandbox by default), many tasks at once. A task that cannot
be loaded, or whose verifier writes no reward, is reported on one line naming the file and the
problem; the other tasks still run.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path

from harbor.models.trial.config import AgentConfig, EnvironmentConfig

from modularrsi.tasks.model import TaskError, load_task
from modularrsi.tasks.trials import TrialOutcome, run_trial


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


def _problem(name: str, label: str, outcome: TrialOutcome, expected: float) -> str | None:
    if outcome.exception:
        if "Reward" in outcome.exception or "reward" in outcome.exception:
            return f"{name}: tests/test.sh: wrote no /logs/verifier/reward.txt ({label} run)"
        return f"{name}: {label} trial failed: {outcome.exception}"
    if outcome.reward is None:
        return f"{name}: tests/test.sh: wrote no usable reward ({label} run)"
    if outcome.reward != expected:
        return f"{name}: {label} got reward {outcome.reward:g}, expected {expected:g}"
    return None


async def validate_task(path: Path, out: Path, environment: EnvironmentConfig | str) -> ValidationRow:
    row = ValidationRow(task=path.name, path=str(path))
    started = time.monotonic()
    try:
        load_task(path)
    except TaskError as exc:
        row.problem = str(exc)
        return row
    oracle, nop = await asyncio.gather(
        run_trial(path, AgentConfig(name="oracle"), out / "oracle", environment, f"{path.name}__oracle"),
        run_trial(path, AgentConfig(name="nop"), out / "nop", environment, f"{path.name}__nop"))
    row.oracle, row.nop = oracle.reward, nop.reward
    row.problem = _problem(path.name, "oracle", oracle, 1.0) or _problem(path.name, "nop", nop, 0.0)
    row.seconds = round(time.monotonic() - started, 2)
    return row


async def validate_tasks(paths: list[Path], out: Path, environment: EnvironmentConfig | str,
                         concurrency: int = 4,
                         on_done: Callable[[ValidationRow], None] | None = None) -> list[ValidationRow]:
    """Validate every task (``concurrency`` tasks at a time); write ``validation.json`` to ``out``."""
    out.mkdir(parents=True, exist_ok=True)
    gate = asyncio.Semaphore(max(1, concurrency))

    async def one(path: Path) -> ValidationRow:
        async with gate:
            try:
                row = await validate_task(path, out, environment)
            except Exception as exc:  # noqa: BLE001 - one broken task must not stop the others
                row = ValidationRow(path.name, str(path), problem=f"{path.name}: {type(exc).__name__}: {exc}")
        if on_done:
            on_done(row)
        return row

    started = time.monotonic()
    rows = await asyncio.gather(*(one(p) for p in paths))
    report = {"tasks": [asdict(r) | {"ok": r.ok} for r in rows],
              "passed": sum(r.ok for r in rows), "failed": sum(not r.ok for r in rows),
              "wall_seconds": round(time.monotonic() - started, 2)}
    tmp = out / "validation.json.tmp"
    tmp.write_text(json.dumps(report, indent=2))
    tmp.replace(out / "validation.json")
    return list(rows)
