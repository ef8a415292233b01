"""What a run asks for (``config.yaml``): validated once, merged defaults → file → CLI flags."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from modularrsi.models.roles import ModelRoles
from modularrsi.tasks.trials import ENV_HELP, check_environment_name
from modularrsi.util.settings import load_settings


class RunConfig(BaseModel):
    """Settings of ``modularrsi run``; every field is documented and validated."""

    model_config = ConfigDict(extra="forbid")

    tasks: list[Path] = Field(default_factory=list, description="Task directories or directories of tasks.")
    dataset: str | None = Field(default=None, description="Harbor registry dataset NAME@VERSION instead of tasks.")
    registry_path: Path | None = Field(default=None, description="Local Harbor registry JSON for --dataset.")
    manifest: Path | None = Field(default=None, description="Pool manifest: run its train split (minus "
                                  "exclusions) from --tasks; its hash is recorded in lock.json.")
    disjoint_from: list[Path] = Field(default_factory=list, description="Manifests whose train tasks this run "
                                      "must not touch (evaluation after evolution); refused otherwise.")
    generation: Path | None = Field(default=None, description="Generation directory (default gen_0).")
    agent: str = Field(default="modularrsi.harness:ModularAgent", description="Harbor agent import path.")
    model: str = Field(default="sim", description="sim, scripted:FILE.json, or a LiteLLM model name.")
    k: int = Field(default=3, ge=1, description="Attempts per task.")
    attempts: dict[str, list[int]] | None = Field(default=None, description="Attempt indices to run per task "
                                                  "name (others: 0…k-1); e.g. a replay of chosen attempts.")
    concurrency: int = Field(default=8, ge=1, description="Attempts running at once.")
    env: str = Field(default="auto", description=ENV_HELP)
    env_kwargs: dict[str, Any] = Field(default_factory=dict, description="Environment kwargs.")
    seed: int = Field(default=0, description="Run seed; each attempt's seed derives from it.")
    max_turns: int | None = Field(default=50, ge=1, description="Turn limit per attempt (None: none).")
    timeout_multiplier: float = Field(default=1.0, gt=0, description="Scales every task timeout.")
    agent_kwargs: dict[str, Any] = Field(default_factory=dict, description="Extra --ak options for the agent.")
    max_tokens: int | None = Field(default=None, ge=1, description="Token cap for the whole run (all attempts).")
    max_cost_usd: float | None = Field(default=None, gt=0, description="Cost cap for the whole run, USD.")
    cache: bool = Field(default=True, description="Cache model responses in the run directory.")
    replay_cache: Path | None = Field(default=None, description="Read-only response cache of the paired side's "
                                      "run (its cache.sqlite): a request identical to one recorded there, for "
                                      "the same attempt, gets the recorded reply; the model is called only from "
                                      "the first request that differs (common random numbers). With cache only.")
    roles: ModelRoles | None = Field(default=None, description="Per-role model settings (agent, composer, …); "
                                     "when given, roles.agent replaces `model`.")

    @field_validator("attempts")
    @classmethod
    def _attempt_indices(cls, value: dict[str, list[int]] | None) -> dict[str, list[int]] | None:
        for task, indices in (value or {}).items():
            if not indices or min(indices) < 0 or len(set(indices)) != len(indices):
                raise ValueError(f"attempts.{task}: {indices} — give distinct attempt indices ≥ 0")
        return value

    @model_validator(mode="after")
    def _agent_role_is_the_model(self) -> RunConfig:
        """With ``roles``, ``model`` is the agent role's, so config.yaml, lock.json and results.json name the
        model the trials called (not the default ``sim``)."""
        if self.roles is not None:
            self.model = self.roles.agent.model
        return self

    @classmethod
    def load(cls, path: Path | None, overrides: dict[str, Any] | None = None) -> RunConfig:
        return load_settings(cls, path, overrides)

    def dump(self) -> dict[str, Any]:
        return self.model_dump(mode="json")

    @field_validator("env")
    @classmethod
    def _known_environment(cls, value: str) -> str:
        return check_environment_name(value)
