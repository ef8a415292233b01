"""What a run asks for (``config.yaml``): validated once, merged defaults → file → CLI flags."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Self

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from modularrsi.models.roles import ModelRoles, Role
from modularrsi.models.settings import CALL_FIELDS, ModelSettings
from modularrsi.tasks.trials import ENV_HELP, check_environment_name
from modularrsi.util.jsontypes import Options
from modularrsi.util.settings import load_settings


class TrialSettings(BaseModel):
    """What every command that runs trials asks for (``run``, ``evolve``, ``tasks difficulty``), declared
    once: the tasks, the generation, the models, attempts, environment, seed, limits and caps.

    The agent's model is named either by ``model`` (a name with default call settings) or by
    ``roles.agent`` (a name with its call settings); with ``roles``, ``model`` is the agent role's, so
    config.yaml, lock.json and results.json name the model the trials called."""

    model_config = ConfigDict(extra="forbid")

    tasks: list[Path] = Field(default_factory=list, description="Task directories or directories of tasks.")
    manifest: Path | None = Field(default=None, description="Pool manifest: use its train split (minus "
                                  "exclusions) from the tasks; its hash is recorded in lock.json.")
    generation: Path | None = Field(default=None, description="Generation directory (default gen_0, Terminus-2).")
    model: str = Field(default="sim", description="The agent's model (sim, scripted:FILE.json, or a LiteLLM "
                       "model name) with default call settings, and every role's when `roles` is not given.")
    roles: ModelRoles | None = Field(default=None, description="Per-role models with their call settings (agent, "
                                     "composer, analyst, editor, reviewer); unset roles use roles.agent, which "
                                     "replaces `model`. `sim` for a role uses its offline implementation.")
    k: int = Field(default=3, ge=1, description="Attempts per task (per task and epoch in an evolution).")
    concurrency: int = Field(default=8, ge=1, description="Attempts running at once (in an evolution: over all "
                             "lanes).")
    env: str = Field(default="auto", description=ENV_HELP)
    env_kwargs: Options = Field(default_factory=dict, description="Environment kwargs.")
    seed: int = Field(default=0, description="Run seed; each attempt's seed derives from it (in an evolution also "
                      "sampling, editing and the gates': same seed, same run).")
    max_turns: int | None = Field(default=50, ge=1, description="Turn limit per attempt (None: none).")
    timeout_multiplier: float = Field(default=1.0, gt=0, description="Scales every task timeout (raise it for "
                                      "slow local models).")
    max_tokens: int | None = Field(default=None, ge=1, description="Token cap for the whole run (all attempts).")
    max_cost_usd: float | None = Field(default=None, gt=0, description="Cost cap for the whole run, USD.")

    @model_validator(mode="after")
    def _one_agent_model(self) -> Self:
        if self.roles is not None:
            if "model" in self.model_fields_set and self.model != self.roles.agent.model:
                raise ValueError(f"model '{self.model}' and roles.agent.model '{self.roles.agent.model}' name "
                                "different agents; give the agent's model once (in roles.agent)")
            self.model = self.roles.agent.model
        return self

    @field_validator("env")
    @classmethod
    def _known_environment(cls, value: str) -> str:
        return check_environment_name(value)

    def role(self, role: Role) -> ModelSettings:
        """The settings of model role ``role`` (an unset role: the agent's)."""
        return self.roles.for_role(role) if self.roles else ModelSettings(model=self.model)

    def dump(self) -> dict[str, Any]:
        return self.model_dump(mode="json")


#: The settings a run started by another command inherits from it (not its tasks).
INHERITED = frozenset(TrialSettings.model_fields) - {"tasks", "manifest", "generation"}


class RunConfig(TrialSettings):
    """Settings of ``modularrsi run``; every field is documented and validated."""

    dataset: str | None = Field(default=None, description="Harbor registry dataset NAME@VERSION instead of tasks.")
    registry_path: Path | None = Field(default=None, description="Local Harbor registry JSON for --dataset.")
    disjoint_from: list[Path] = Field(default_factory=list, description="Manifests whose train tasks this run "
                                      "must not touch (evaluation after evolution); refused otherwise.")
    agent: str = Field(default="modularrsi.harness:ModularAgent", description="Harbor agent import path.")
    attempts: dict[str, list[int]] | None = Field(default=None, description="Attempt indices to run per task "
                                                  "name (others: 0…k-1); e.g. a replay of chosen attempts.")
    agent_kwargs: Options = Field(default_factory=dict, description="Further --ak options of the agent "
                                         "(not the model's call settings: those go in roles.agent).")
    cache: bool = Field(default=True, description="Cache model responses in the run directory.")
    replay_cache: Path | None = Field(default=None, description="Read-only response cache of the paired side's "
                                      "run (its cache.sqlite): a request identical to one recorded there, for "
                                      "the same attempt, gets the recorded reply; the model is called only from "
                                      "the first request that differs (common random numbers). With cache only.")

    @field_validator("attempts")
    @classmethod
    def _attempt_indices(cls, value: dict[str, list[int]] | None) -> dict[str, list[int]] | None:
        for task, indices in (value or {}).items():
            if not indices or min(indices) < 0 or len(set(indices)) != len(indices):
                raise ValueError(f"attempts.{task}: {indices} — give distinct attempt indices ≥ 0")
        return value

    @field_validator("agent_kwargs")
    @classmethod
    def _no_model_settings(cls, value: Options) -> Options:
        for key in value:
            if key in CALL_FIELDS or key in ("model", "base_url"):
                raise ValueError(f"agent_kwargs.{key} is a model setting: give it in roles.agent "
                                 f"(roles: {{agent: {{model: NAME, {key}: ...}}}})")
        return value

    @classmethod
    def load(cls, path: Path | None, overrides: Options | None = None) -> RunConfig:
        return load_settings(cls, path, overrides)
