"""Per-role model settings: agent, composer, analyst, editor, reviewer.

Each role names its own model and connection; an unset role falls back to the agent's settings,
except the reviewer, which should be a different model from the editor (a warning says so when it
is not). API keys are never part of a setting: ``api_key_env`` names the environment variable.

Three views of a setting: :meth:`ModelSettings.kwargs` is the connection every role understands,
:meth:`ModelSettings.agent_kwargs` adds the reply cap and retries (options of the agent in a trial),
and :meth:`ModelSettings.backend_kwargs` adds everything the model layer reads (also JSON-schema
output) for the models the evolution builds itself (composer, analyst, editor, reviewer).
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from modularrsi.util.errors import UserError

Role = Literal["agent", "composer", "analyst", "editor", "reviewer"]
ROLES: tuple[Role, ...] = ("agent", "composer", "analyst", "editor", "reviewer")
#: Settings only the model layer reads (not part of the plain connection).
BACKEND_ONLY = frozenset({"max_output_tokens", "max_retries", "structured_output"})
#: Of those, what the agent in a trial takes as options too (it asks for no structured replies).
AGENT_OPTIONS = frozenset({"max_output_tokens", "max_retries"})


class ModelSettings(BaseModel):
    """How to reach one model."""

    model_config = ConfigDict(extra="forbid")

    model: str = Field(description="sim, scripted:FILE.json, or a LiteLLM model name.")
    api_base: str | None = Field(default=None, description="OpenAI-compatible base URL.")
    api_key_env: str | None = Field(default=None, description="Environment variable holding the API key.")
    temperature: float | None = Field(default=None, description="Sampling temperature.")
    timeout_s: float = Field(default=120.0, gt=0, description="Per-call timeout.")
    context_limit: int | None = Field(default=None, gt=0, description="Override the context window (tokens).")
    max_output_tokens: int | None = Field(default=None, gt=0, description="Cap on one reply's tokens (a reply "
                                          "cut off there is recorded as such); caps spending per call.")
    max_retries: int | None = Field(default=None, ge=0, description="Retries of a failed call (rate limits, "
                                    "5xx, timeouts); default the model layer's.")
    structured_output: bool = Field(default=True, description="Send a JSON schema as response_format for the "
                                    "structured roles (analyst, reviewer, composer); False for endpoints that "
                                    "refuse it (repair-and-retry still applies).")

    def kwargs(self) -> dict[str, Any]:
        """Connection keyword arguments every role takes (no model name, no None values)."""
        return {k: v for k, v in self.model_dump(exclude={"model", *BACKEND_ONLY}).items() if v is not None}

    def agent_kwargs(self) -> dict[str, Any]:
        """:meth:`kwargs` plus the reply cap and retries, as options of the agent in a trial."""
        return {k: v for k, v in self.backend_kwargs().items() if k not in BACKEND_ONLY - AGENT_OPTIONS}

    def backend_kwargs(self) -> dict[str, Any]:
        """:meth:`kwargs` plus the model layer's own settings, for ``make_model``."""
        return {k: v for k, v in self.model_dump(exclude={"model"}).items() if v is not None}


class ModelRoles(BaseModel):
    """Settings per role; ``agent`` is required, the others default to it."""

    model_config = ConfigDict(extra="forbid")

    agent: ModelSettings = Field(description="The model that attempts the tasks (and every role left unset).")
    composer: ModelSettings | None = Field(default=None, description="Task-aware composer; unset: the agent's.")
    analyst: ModelSettings | None = Field(default=None, description="Reads trajectories for culprits; unset: the "
                                          "agent's.")
    editor: ModelSettings | None = Field(default=None, description="Writes the module functions; unset: the agent's.")
    reviewer: ModelSettings | None = Field(default=None, description="Reward-blind review; unset: the agent's (a "
                                           "different model is advised).")

    def for_role(self, role: Role) -> ModelSettings:
        if role not in ROLES:
            raise UserError(f"model role '{role}' is unknown; valid roles: {', '.join(ROLES)}")
        return getattr(self, role) or self.agent

    def warnings(self) -> list[str]:
        editor, reviewer = self.for_role("editor"), self.for_role("reviewer")
        if editor.model == reviewer.model and not editor.model.startswith("sim"):
            return [f"reviewer and editor are the same model ({editor.model}); a different reviewer is advised"]
        return []
