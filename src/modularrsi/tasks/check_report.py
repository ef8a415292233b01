"""The records of ``tasks check``: its configuration, one :class:`Check` per aspect, the per-task
:class:`CheckReport`, and the ``check`` field it leaves in a pool manifest entry.

Invariant: a task FAILS exactly when one of its checks has ``ok`` False; flags never fail a task.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field, computed_field

from modularrsi.models.settings import ModelSettings
from modularrsi.tasks.manifest import CheckRecord
from modularrsi.util.jsontypes import Options


class CheckConfig(BaseModel):
    """Thresholds and options of one ``tasks check``."""

    model_config = ConfigDict(extra="forbid")
    repeats: int = Field(2, ge=1, description="Oracle runs per task; each must be rewarded 1.")
    min_steps: int = Field(2, ge=0, description="Flag 'trivial' under this many effective reference steps.")
    min_words: int = Field(25, ge=0, description="Flag 'trivial' under this many instruction words.")
    judge: ModelSettings | None = Field(None, description="Model of the LLM judge (a name, or a name with its "
                                        "call settings); None skips it.")
    judge_min_score: int = Field(3, ge=1, le=5, description="Flag 'judge-low' when a score is under this.")
    concurrency: int = Field(4, ge=1, description="Tasks checked at once.")


class Check(BaseModel):
    """One check: ``ok`` False means the task fails; ``flags`` are warnings; ``reason`` says why."""

    ok: bool = True
    flags: list[str] = Field(default_factory=list)
    reason: str = ""


class EvaluatorCheck(Check):
    oracle: list[float | None] = Field(default_factory=list)
    nop: float | None = None
    partial: float | None = None
    partial_cut: str | None = None
    forgery: float | None = Field(None, description="Reward of the forgery probe's attacks, all at once.")
    forged_by: list[str] = Field(default_factory=list, description="Attacks rewarded without solving the task.")


class TrivialityCheck(Check):
    steps: int = 0
    words: int = 0


class JudgeCheck(Check):
    model: str
    scores: dict[str, int] = Field(default_factory=dict)
    reasons: dict[str, str] = Field(default_factory=dict)
    error: str | None = None


class CheckReport(BaseModel):
    """Every check of one task; a check that was not reached is None."""

    task: str
    path: str
    metadata: Options = Field(default_factory=dict)
    environment: Check
    evaluator: EvaluatorCheck | None = None
    non_triviality: TrivialityCheck | None = None
    judge: JudgeCheck | None = None
    seconds: float = 0.0

    def _checks(self) -> list[Check]:
        return [c for c in (self.environment, self.evaluator, self.non_triviality, self.judge) if c is not None]

    @computed_field
    @property
    def ok(self) -> bool:
        return all(c.ok for c in self._checks())

    @computed_field
    @property
    def flags(self) -> list[str]:
        return sorted({f for c in self._checks() for f in c.flags})

    @computed_field
    @property
    def failures(self) -> list[str]:
        return [c.reason for c in self._checks() if not c.ok]


def manifest_record(report: CheckReport, checked_at: str) -> CheckRecord:
    """The ``check`` field of a manifest entry: verdict, flags, failures and the key figures."""
    evaluator, trivial = report.evaluator, report.non_triviality
    return CheckRecord(ok=report.ok, flags=report.flags, failures=report.failures, checked_at=checked_at,
                       oracle=evaluator.oracle if evaluator else None, nop=evaluator.nop if evaluator else None,
                       partial=evaluator.partial if evaluator else None,
                       forgery=evaluator.forgery if evaluator else None,
                       steps=trivial.steps if trivial else None, words=trivial.words if trivial else None,
                       judge=report.judge.scores if report.judge and not report.judge.error else None)
