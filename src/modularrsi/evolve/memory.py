"""The Trajectory Memory: every attempt of every lane and epoch, in SQLite (stdlib, WAL) in the run directory.

``runs/<run-id>/memory.sqlite`` holds:

- ``attempts`` — one row per finished attempt, unique on (lane, epoch, task, attempt): recording is
  an upsert, so ingesting a (resumed) run again changes nothing and duplicates nothing;
- ``findings``, ``directions`` — the analysis's records: a JSON payload under
  (lane, epoch, key), ``key`` unique within (lane, epoch) when given (idempotent), free when None.

Paths of trial directories inside the memory's own directory are stored relative to it, so a run
directory can be moved; they are returned absolute.

Infrastructure errors (``infra_error``) are decided here, at ingestion, from the Harbor TrialResult
(see :func:`infra_error`): they mark attempts that say nothing about the harness.
"""

from __future__ import annotations

import json
import re
import sqlite3
from pathlib import Path
from statistics import mean
from typing import Any

from harbor.models.trial.result import TrialResult
from pydantic import BaseModel, ConfigDict

from modularrsi.evolve.signals import Signals, signals_of
from modularrsi.rollouts.runner import read_finished
from modularrsi.tasks.trials import infra_reason as infra_error
from modularrsi.tasks.trials import reward_of

SCHEMA_VERSION = 1
KINDS = ("findings", "directions")  # decided changes live in history.jsonl only
TRIAL_NAME = re.compile(r"^(?P<task>.+)__a(?P<attempt>\d+)$")

_SCHEMA = """
CREATE TABLE IF NOT EXISTS attempts (
    lane TEXT NOT NULL, epoch INTEGER NOT NULL, generation TEXT NOT NULL, task TEXT NOT NULL,
    attempt INTEGER NOT NULL, reward REAL, passed INTEGER NOT NULL, steps INTEGER NOT NULL,
    tokens INTEGER NOT NULL, trial_dir TEXT NOT NULL, signals TEXT NOT NULL, infra_error TEXT,
    UNIQUE (lane, epoch, task, attempt));
CREATE INDEX IF NOT EXISTS attempts_task ON attempts (lane, task, epoch);
"""
_KIND_SCHEMA = """
CREATE TABLE IF NOT EXISTS {kind} (
    id INTEGER PRIMARY KEY, lane TEXT NOT NULL, epoch INTEGER NOT NULL, key TEXT, payload TEXT NOT NULL,
    UNIQUE (lane, epoch, key));
"""
_COLUMNS = ("lane", "epoch", "generation", "task", "attempt", "reward", "passed", "steps", "tokens", "trial_dir",
            "signals", "infra_error")


class AttemptRecord(BaseModel):
    """One attempt as the memory keeps it. ``passed`` means reward ≥ 1; ``infra_error`` set means the
    attempt is excluded from harness diagnosis (see :func:`infra_error`)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    lane: str
    epoch: int
    generation: str
    task: str
    attempt: int
    reward: float | None
    passed: bool
    steps: int
    tokens: int
    trial_dir: str
    signals: Signals = Signals()
    infra_error: str | None = None


class EpochStats(BaseModel):
    """A task's record in one epoch of a lane; means are over valid (non-infra) attempts, None if none."""

    model_config = ConfigDict(frozen=True)

    epoch: int
    attempts: int
    valid: int
    passes: int
    mean_steps: float | None
    pass_mean_steps: float | None


class Item(BaseModel):
    """A later stage's record (finding, direction, gate verdict): JSON payload under (lane, epoch, key)."""

    model_config = ConfigDict(frozen=True)

    id: int
    lane: str
    epoch: int
    key: str | None
    payload: dict[str, Any]


class TrajectoryMemory:
    """Owns one SQLite file. Safe for several processes/lanes (WAL, busy timeout); not thread-shared."""

    def __init__(self, path: Path):
        self.path = Path(path)
        self.root = self.path.parent.resolve()
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(self.path, timeout=60)
        self._db.row_factory = sqlite3.Row
        self._db.execute("PRAGMA journal_mode=WAL")
        with self._db:
            self._db.executescript(_SCHEMA + "".join(_KIND_SCHEMA.format(kind=k) for k in KINDS))
            self._db.execute(f"PRAGMA user_version={SCHEMA_VERSION}")

    @classmethod
    def read_only(cls, path: Path) -> TrajectoryMemory:
        """An existing memory opened for reading only (the report): nothing is created or changed."""
        memory = cls.__new__(cls)
        memory.path, memory.root = Path(path), Path(path).parent.resolve()
        memory._db = sqlite3.connect(f"{memory.path.resolve().as_uri()}?mode=ro", uri=True, timeout=60)
        memory._db.row_factory = sqlite3.Row
        return memory

    @classmethod
    def in_run(cls, run_dir: Path) -> TrajectoryMemory:
        """The memory of an evolution run directory (``<run_dir>/memory.sqlite``)."""
        return cls(Path(run_dir) / "memory.sqlite")

    def close(self) -> None:
        self._db.close()

    def __enter__(self) -> TrajectoryMemory:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # ------------------------------------------------------------ attempts
    def _stored_path(self, trial_dir: str) -> str:
        path = Path(trial_dir).resolve()
        return str(path.relative_to(self.root)) if path.is_relative_to(self.root) else str(path)

    def add(self, records: list[AttemptRecord]) -> None:
        """Insert or replace attempts (idempotent on (lane, epoch, task, attempt)), in one transaction."""
        rows = [(r.lane, r.epoch, r.generation, r.task, r.attempt, r.reward, int(r.passed), r.steps, r.tokens,
                 self._stored_path(r.trial_dir), r.signals.model_dump_json(), r.infra_error) for r in records]
        updates = ", ".join(f"{c}=excluded.{c}" for c in _COLUMNS[5:])
        with self._db:
            self._db.executemany(f"INSERT INTO attempts ({', '.join(_COLUMNS)}) VALUES ({', '.join('?' * 12)}) "
                                 f"ON CONFLICT (lane, epoch, task, attempt) DO UPDATE SET generation=excluded."
                                 f"generation, {updates}", rows)

    def _record(self, row: sqlite3.Row) -> AttemptRecord:
        data = dict(row)
        data["passed"] = bool(data["passed"])
        data["signals"] = Signals.model_validate_json(data["signals"])
        data["trial_dir"] = str(self.root / data["trial_dir"])  # absolute paths stay absolute
        return AttemptRecord(**data)

    def attempts(self, lane: str, epoch: int | None = None, task: str | None = None) -> list[AttemptRecord]:
        """A lane's attempts, optionally of one epoch and/or task, ordered by epoch, task, attempt."""
        sql, args = "SELECT * FROM attempts WHERE lane=?", [lane]
        if epoch is not None:
            sql, args = sql + " AND epoch=?", [*args, epoch]
        if task is not None:
            sql, args = sql + " AND task=?", [*args, task]
        rows = self._db.execute(sql + " ORDER BY epoch, task, attempt", args).fetchall()
        return [self._record(r) for r in rows]

    def past_pass(self, lane: str, task: str, before_epoch: int) -> AttemptRecord | None:
        """The latest passing attempt of ``task`` in an epoch before ``before_epoch`` (fewest steps, then
        lowest attempt index, within that epoch) — the partner of a failure that has none this epoch."""
        row = self._db.execute(
            "SELECT * FROM attempts WHERE lane=? AND task=? AND epoch<? AND passed=1 AND infra_error IS NULL "
            "ORDER BY epoch DESC, steps, attempt LIMIT 1", (lane, task, before_epoch)).fetchone()
        return self._record(row) if row else None

    def task_history(self, lane: str, task: str) -> list[EpochStats]:
        """Per-epoch counts and mean steps of one task in one lane, oldest epoch first."""
        by_epoch: dict[int, list[AttemptRecord]] = {}
        for record in self.attempts(lane, task=task):
            by_epoch.setdefault(record.epoch, []).append(record)
        return [epoch_stats(e, by_epoch[e]) for e in sorted(by_epoch)]

    def record_run(self, run_dir: Path, lane: str, epoch: int, generation: str,
                   tasks: set[str] | None = None) -> list[AttemptRecord]:
        """Ingest every finished trial (``result.json`` present) of a ``modularrsi run`` directory
        (only those of ``tasks`` when given: a sample shared by lanes with different task sets).

        Unfinished attempts are skipped (a resumed run is simply ingested again); ingesting twice gives
        the same rows. Returns the records ingested, ordered by task and attempt."""
        trials = Path(run_dir) / "trials"
        records = []
        for trial_dir in sorted(trials.iterdir()) if trials.is_dir() else []:
            match = TRIAL_NAME.match(trial_dir.name)
            if match is None or (tasks is not None and match["task"] not in tasks):
                continue
            result = read_finished(trial_dir)
            if result is not None:
                records.append(attempt_record(trial_dir, result, lane, epoch, generation))
        self.add(records)
        return sorted(records, key=lambda r: (r.task, r.attempt))

    # ------------------------------------------------------------ later stages
    def _kind(self, kind: str) -> str:
        if kind not in KINDS:
            raise ValueError(f"memory kind '{kind}' is unknown; valid: {', '.join(KINDS)}")
        return kind

    def put(self, kind: str, lane: str, epoch: int, payload: dict[str, Any], key: str | None = None) -> int:
        """Store a payload; with a ``key`` it replaces the one stored under (lane, epoch, key). Returns its id."""
        table = self._kind(kind)
        with self._db:
            cursor = self._db.execute(
                f"INSERT INTO {table} (lane, epoch, key, payload) VALUES (?, ?, ?, ?) "
                "ON CONFLICT (lane, epoch, key) DO UPDATE SET payload=excluded.payload RETURNING id",
                (lane, epoch, key, json.dumps(payload, sort_keys=True, default=str)))
            return int(cursor.fetchone()[0])

    def items(self, kind: str, lane: str | None = None, epoch: int | None = None) -> list[Item]:
        """Stored payloads of one kind for a lane (every lane when None; optionally one epoch), by epoch
        and insertion order."""
        table = self._kind(kind)
        sql, args = f"SELECT * FROM {table} WHERE lane=coalesce(?, lane)", [lane]
        if epoch is not None:
            sql, args = sql + " AND epoch=?", [*args, epoch]
        rows = self._db.execute(sql + " ORDER BY epoch, id", args).fetchall()
        return [Item(**{**dict(r), "payload": json.loads(r["payload"])}) for r in rows]


def epoch_stats(epoch: int, records: list[AttemptRecord]) -> EpochStats:
    """Counts and mean steps of one task's attempts in one epoch (infra attempts excluded from means)."""
    valid = [r for r in records if r.infra_error is None]
    passing = [r.steps for r in valid if r.passed]
    return EpochStats(epoch=epoch, attempts=len(records), valid=len(valid), passes=len(passing),
                      mean_steps=mean(r.steps for r in valid) if valid else None,
                      pass_mean_steps=mean(passing) if passing else None)


def attempt_record(trial_dir: Path, result: TrialResult, lane: str, epoch: int, generation: str) -> AttemptRecord:
    """One finished trial as an :class:`AttemptRecord` (task and attempt index from ``<task>__a<k>``)."""
    match = TRIAL_NAME.match(trial_dir.name)
    if match is None:
        raise ValueError(f"{trial_dir}: trial directory name is not <task>__a<k>")
    agent = result.agent_result
    signals = signals_of(trial_dir)
    meta = (agent.metadata or {}) if agent else {}
    reward, turns = reward_of(result), meta.get("turns")
    return AttemptRecord(
        lane=lane, epoch=epoch, generation=generation, task=match["task"], attempt=int(match["attempt"]),
        reward=reward, passed=reward is not None and reward >= 1.0,
        steps=turns if isinstance(turns, int) else signals.turns,
        tokens=((agent.n_input_tokens or 0) + (agent.n_output_tokens or 0)) if agent else 0,
        trial_dir=str(trial_dir.resolve()), signals=signals, infra_error=infra_error(result))

