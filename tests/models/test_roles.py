"""Per-role model settings."""

import pytest
from pydantic import ValidationError

from modularrsi.models.roles import ModelRoles


def test_roles_default_to_the_agent_and_keep_their_own():
    roles = ModelRoles.model_validate({"agent": {"model": "openai/a", "api_key_env": "KEY_A"},
                                       "reviewer": {"model": "openai/b", "temperature": 0.0}})
    assert roles.for_role("composer").model == "openai/a"
    reviewer = roles.for_role("reviewer")
    assert (reviewer.model, reviewer.temperature, reviewer.api_key_env) == ("openai/b", 0.0, None)
    assert roles.warnings() == []


def test_same_editor_and_reviewer_is_warned_and_unknown_role_refused():
    roles = ModelRoles.model_validate({"agent": {"model": "openai/a"}})
    assert "same model" in roles.warnings()[0]
    with pytest.raises(ValueError, match="valid roles: agent, composer, analyst, editor, reviewer"):
        roles.for_role("critic")


def test_keys_are_not_settings():
    with pytest.raises(ValidationError, match="api_key"):
        ModelRoles.model_validate({"agent": {"model": "openai/a", "api_key": "sk-x"}})
