"""``results.json`` of a run: its schema (pydantic) and how it is built from attempts."""

from __future__ import annotations

from collections import Counter
from dataclasses import asdict

from pydantic import BaseModel, ConfigDict

from modularrsi.models.settings import is_sim
from modularrsi.rollouts.metrics import Attempt, PerTask, summarise

SCHEMA_VERSION = 1


class Estimates(BaseModel):
    """The headline metrics of a set of attempts, each with its bootstrap 95 % interval."""

    model_config = ConfigDict(extra="forbid")
    acc: float
    acc_ci95: list[float]
    pass_at_k: float
    pass_at_k_ci95: list[float]
    pass_hat_k: float
    pass_hat_k_ci95: list[float]
    mean_steps: float
    mean_steps_ci95: list[float]


class Overall(Estimates):
    """Over the valid attempts; ``invalid_attempts`` did not get a fair chance (listed in ``attempts``)."""

    tasks: int
    attempts: int
    k: int
    invalid_attempts: int
    input_tokens: int
    output_tokens: int
    cost_usd: float
    wall_s: float
    all_pass_share: float
    mixed_share: float
    all_fail_share: float


class AttemptRow(BaseModel):
    model_config = ConfigDict(extra="forbid")
    task: str
    attempt: int
    reward: float | None
    steps: int
    input_tokens: int
    output_tokens: int
    cost_usd: float
    wall_s: float
    error: str | None
    environment: str = ""
    invalid: str | None = None


class RunResults(BaseModel):
    """The schema of ``results.json``. ``simulated`` is true when the agent model was ``sim``:
    such numbers say the machinery works, not what a real model would gain."""

    model_config = ConfigDict(extra="forbid")
    schema_version: int = SCHEMA_VERSION
    run_id: str
    model: str
    simulated: bool
    generation: str
    wall_s: float
    overall: Overall
    per_task: list[PerTask]
    attempts: list[AttemptRow]

    def environments(self) -> str:
        """Which environments ran the attempts, with counts ("local 30 · podman 6")."""
        counts = Counter(a.environment or "unrecorded" for a in self.attempts)
        return " · ".join(f"{name} {n}" for name, n in counts.most_common())

    def invalid(self) -> list[AttemptRow]:
        """Attempts that did not get a fair chance, each with its reason (``invalid``, else ``error``)."""
        return [a for a in self.attempts if a.invalid is not None or a.reward is None]


def build_results(run_id: str, model: str, generation: str, attempts: list[Attempt], k: int,
                  wall_s: float, seed: int = 0) -> RunResults:
    overall, per_task = summarise(attempts, k, seed=seed)
    return RunResults(run_id=run_id, model=model, simulated=is_sim(model), generation=generation,
                      wall_s=round(wall_s, 2), overall=Overall(**overall), per_task=per_task,
                      attempts=[AttemptRow(**asdict(a)) for a in attempts])
