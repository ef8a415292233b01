"""Settings of the opt-in real-model tests (``pytest -m real_model``): skipped unless an endpoint is named."""

from __future__ import annotations

import os

import pytest

from modularrsi.models.roles import ModelRoles
from modularrsi.models.settings import ModelSettings

MODEL, API_BASE, KEY_ENV = "MODULARRSI_REAL_MODEL", "MODULARRSI_REAL_API_BASE", "MODULARRSI_REAL_KEY_ENV"


@pytest.fixture
def real_roles(monkeypatch) -> ModelRoles:
    """The real model in every role (agent at temperature 0.7 with replies capped at 1024 tokens, structured
    roles at 0), or a one-line skip."""
    name, base = os.environ.get(MODEL), os.environ.get(API_BASE)
    if not name or not base:
        pytest.skip(f"no real model endpoint configured: set {MODEL} (a LiteLLM name) and {API_BASE}")
    key_env = os.environ.get(KEY_ENV, "MODULARRSI_REAL_KEY")
    if not os.environ.get(key_env):
        monkeypatch.setenv(key_env, "local")  # a local server takes any non-empty key
    link = {"model": name, "api_base": base, "api_key_env": key_env, "timeout_s": 600}
    structured = {**link, "temperature": 0.0, "max_output_tokens": 500}
    agent = ModelSettings(**link, temperature=0.7, max_output_tokens=1024)  # uncapped, one reply ran 600 s
    return ModelRoles(agent=agent, composer=ModelSettings(**structured),
                      analyst=ModelSettings(**structured), reviewer=ModelSettings(**structured),
                      editor=ModelSettings(**{**link, "temperature": 0.2, "max_output_tokens": 1500}))
