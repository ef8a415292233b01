"""The agent's model-call settings default to Terminus-2's: LiteLLM's 600 s read timeout, Harbor's
1,000,000-token window for a model LiteLLM does not know, and its known limits otherwise."""

from __future__ import annotations

import pytest

from modularrsi.harness.agent import ModularAgent
from modularrsi.harness.model_limits import FALLBACK_CONTEXT_LIMIT, RETRY_BACKOFF_S, model_limits


def built_model(tmp_path, name: str, **options):
    agent = ModularAgent(tmp_path, name, api_base="http://127.0.0.1:9/v1", **options)
    return agent._model()


def test_defaults_are_terminus2s(tmp_path):
    model = built_model(tmp_path, "openai/parity-unknown-model")
    assert model.settings.timeout_s == 600.0
    assert model.context_limit() == FALLBACK_CONTEXT_LIMIT == 1_000_000
    assert (model.settings.max_retries, model.backoff_s) == (2, RETRY_BACKOFF_S)


def test_a_known_model_gets_litellms_limits(tmp_path):
    context, output = model_limits("gpt-4o-mini")
    assert context == 128_000 and output == 16_384
    assert built_model(tmp_path, "gpt-4o-mini").context_limit() == context


def test_settings_can_be_changed(tmp_path):
    model = built_model(tmp_path, "openai/parity-unknown-model", timeout_s=30, max_retries=0, context_limit=9000)
    assert (model.settings.timeout_s, model.settings.max_retries, model.context_limit()) == (30, 0, 9000)


@pytest.mark.parametrize("value", [0, -5])
def test_a_bad_timeout_is_refused_naming_the_option(tmp_path, value):
    with pytest.raises(Exception, match="timeout_s"):
        ModularAgent(tmp_path, "openai/x", timeout_s=value)
