"""Per-role model settings: agent, composer, analyst, editor, reviewer.

Each role names its own model and how to call it (:class:`~modularrsi.models.settings.ModelSettings`);
an unset role falls back to the agent's, except that the reviewer should be a different model from the
editor (a warning says so when it is not).
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from modularrsi.models.settings import ModelSettings, is_sim
from modularrsi.util.errors import UserError

Role = Literal["agent", "composer", "analyst", "editor", "reviewer"]
ROLES: tuple[Role, ...] = ("agent", "composer", "analyst", "editor", "reviewer")


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
        if editor.model == reviewer.model and not is_sim(editor.model):
            return [f"reviewer and editor are the same model ({editor.model}); a different reviewer is advised"]
        return []
