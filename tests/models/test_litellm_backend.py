"""LiteLLMModel over real HTTP against FakeOpenAIServer: retries, typed errors, accounting, key hygiene."""

from __future__ import annotations

import json
import logging
import os
import select
import subprocess
import sys
import time
import urllib.request

import pytest

from modularrsi.models.base import ChatModel, ContextOverflow, Message, ModelUnavailable
from modularrsi.models.litellm_backend import DEFAULT_CONTEXT_LIMIT, LiteLLMModel
from modularrsi.models.settings import ModelSettings
from modularrsi.offline.fake_server import EXHAUSTED, FakeOpenAIServer, prompt_tokens, rough_tokens

SECRET = "sk-planted-secret-123"
KEY_ENV = "MODULARRSI_TEST_KEY"
MESSAGES = [Message("system", "Be brief.", "instruction"), Message("user", "Say hi to the tester.", "observation")]


@pytest.fixture(autouse=True)
def planted_key(monkeypatch):
    monkeypatch.setenv(KEY_ENV, SECRET)
    monkeypatch.setenv("LITELLM_LOCAL_MODEL_COST_MAP", "True")


def make_model(server: FakeOpenAIServer, name: str = "openai/fake-model", backoff_s: float = 0.01,
               **settings) -> LiteLLMModel:
    settings = {"timeout_s": 5, "max_retries": 3} | settings
    return LiteLLMModel(ModelSettings(model=name, api_base=server.base_url, api_key_env=KEY_ENV, **settings),
                        backoff_s=backoff_s)


def assert_wire_only(server: FakeOpenAIServer) -> None:
    """No request ever carried a purpose tag: every message is exactly {role, content}."""
    assert server.requests
    for request in server.requests:
        assert "purpose" not in json.dumps(request)
        assert all(set(m) == {"role", "content"} for m in request["messages"])


async def test_success_content_and_tokens():
    with FakeOpenAIServer(["Hi, tester!"]) as server:
        model = make_model(server)
        completion = await model.complete(MESSAGES)
    assert isinstance(model, ChatModel)
    assert completion.content == "Hi, tester!"
    assert completion.input_tokens == prompt_tokens(server.requests[0])
    assert completion.output_tokens == rough_tokens("Hi, tester!")
    assert completion.cost_usd == 0.0 and completion.model == "openai/fake-model"
    assert completion.latency_s > 0
    assert server.requests[0]["model"] == "fake-model"
    assert server.requests[0]["messages"] == [m.wire() for m in MESSAGES]
    assert server.headers[0]["authorization"] == f"Bearer {SECRET}"
    assert_wire_only(server)


async def test_rate_limit_then_success_is_retried():
    with FakeOpenAIServer([{"status": 429}, "after the wait"]) as server:
        completion = await make_model(server).complete(MESSAGES)
    assert completion.content == "after the wait"
    assert len(server.requests) == 2
    assert_wire_only(server)


async def test_retry_after_header_overrides_long_backoff():
    with FakeOpenAIServer([{"status": 429, "retry_after": 0}, "quick"]) as server:
        started = time.monotonic()
        completion = await make_model(server, backoff_s=20).complete(MESSAGES)
    assert completion.content == "quick"
    assert time.monotonic() - started < 10


async def test_server_errors_twice_then_success():
    with FakeOpenAIServer([{"status": 500}, {"status": 503}, "third time lucky"]) as server:
        completion = await make_model(server).complete(MESSAGES)
    assert completion.content == "third time lucky"
    assert len(server.requests) == 3


async def test_timeout_then_success():
    with FakeOpenAIServer([{"delay": 5, "content": "too late"}, "on time"]) as server:
        completion = await make_model(server, timeout_s=0.5).complete(MESSAGES)
    assert completion.content == "on time"
    assert len(server.requests) == 2


async def test_malformed_body_then_success():
    with FakeOpenAIServer([{"malformed": True}, "well formed"]) as server:
        completion = await make_model(server).complete(MESSAGES)
    assert completion.content == "well formed"
    assert len(server.requests) == 2


async def test_context_length_is_not_retried():
    with FakeOpenAIServer([{"context_length": True}, "never sent"]) as server:
        with pytest.raises(ContextOverflow, match="maximum context length") as info:
            await make_model(server).complete(MESSAGES)
        assert len(server.requests) == 1
        assert server.remaining == 1
    assert "openai/fake-model" in str(info.value)


async def test_persistent_errors_give_up_without_leaking_the_key(caplog):
    caplog.set_level(logging.DEBUG)
    max_retries = 2
    with FakeOpenAIServer([{"status": 500, "message": f"boom, key was {SECRET}"}] * 10) as server:
        model = make_model(server, max_retries=max_retries)
        with pytest.raises(ModelUnavailable) as info:
            await model.complete(MESSAGES)
    message = str(info.value)
    assert len(server.requests) == max_retries + 1
    assert "\n" not in message
    assert "openai/fake-model" in message and "InternalServerError" in message and "3 attempts" in message
    assert SECRET not in message and "***" in message
    assert SECRET not in repr(model) and SECRET not in repr(info.value)
    assert info.value.__cause__ is None
    assert SECRET not in caplog.text
    assert_wire_only(server)


async def test_client_error_is_not_retried_and_redacted():
    script = [{"status": 401, "message": f"Incorrect API key provided: {SECRET}"}, "unused"]
    with FakeOpenAIServer(script) as server, pytest.raises(ModelUnavailable, match="not retried") as info:
        await make_model(server).complete(MESSAGES)
    assert len(server.requests) == 1
    assert SECRET not in str(info.value)


async def test_script_exhaustion_fails_loudly():
    with FakeOpenAIServer([]) as server, pytest.raises(ModelUnavailable, match=EXHAUSTED):
        await make_model(server, max_retries=1).complete(MESSAGES)
    assert server.unexpected_calls == 2


async def test_missing_key_variable(monkeypatch):
    monkeypatch.delenv(KEY_ENV)
    with FakeOpenAIServer(["unused"]) as server, pytest.raises(ModelUnavailable, match=KEY_ENV):
        await make_model(server).complete(MESSAGES)
    assert server.requests == []


async def test_known_model_is_priced():
    with FakeOpenAIServer(["priced reply"]) as server:
        completion = await make_model(server, name="openai/gpt-4o-mini").complete(MESSAGES)
    assert completion.cost_usd > 0


async def test_responder_serves_dynamic_replies():
    def echo(request):
        return "echo: " + request["messages"][-1]["content"]

    with FakeOpenAIServer(responder=echo) as server:
        model = make_model(server)
        first = await model.complete([Message("user", "one")])
        second = await model.complete([Message("user", "two")])
    assert (first.content, second.content) == ("echo: one", "echo: two")


def test_context_limit_and_token_count():
    assert LiteLLMModel(ModelSettings(model="openai/fake-model", context_limit=1000)).context_limit() == 1000
    assert LiteLLMModel(ModelSettings(model="openai/fake-model")).context_limit() == DEFAULT_CONTEXT_LIMIT
    assert LiteLLMModel(ModelSettings(model="openai/fake-model"), context_fallback=5000).context_limit() == 5000
    assert LiteLLMModel(ModelSettings(model="openai/gpt-4o")).context_limit() == 128000
    assert LiteLLMModel(ModelSettings(model="openai/fake-model")).count_tokens(MESSAGES) > 0


def test_backoff_is_capped():
    model = LiteLLMModel(ModelSettings(model="openai/fake-model"), backoff_s=100)
    assert model._delay(10, RuntimeError("x")) <= model.MAX_BACKOFF_S


def test_models_endpoint():
    with FakeOpenAIServer([], model="my-fake") as server, urllib.request.urlopen(f"{server.base_url}/models") as r:
        body = json.load(r)
    assert body["data"][0]["id"] == "my-fake"


def test_command_line_server(tmp_path):
    script = tmp_path / "script.json"
    script.write_text(json.dumps(["from the command line"]))
    env = os.environ | {"LITELLM_LOCAL_MODEL_COST_MAP": "True", "PYTHONUNBUFFERED": "1"}
    command = [sys.executable, "-m", "modularrsi.offline.fake_server", "--script", str(script)]
    proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    try:
        ready, _, _ = select.select([proc.stdout], [], [], 20)
        assert ready, "fake server printed nothing"
        base_url = proc.stdout.readline().strip()
        assert base_url.startswith("http://127.0.0.1:") and base_url.endswith("/v1")
        body = json.dumps({"model": "fake-model", "messages": [{"role": "user", "content": "hi"}]}).encode()
        request = urllib.request.Request(f"{base_url}/chat/completions", data=body,
                                         headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(request, timeout=10) as response:
            reply = json.load(response)
        assert reply["choices"][0]["message"]["content"] == "from the command line"
    finally:
        proc.terminate()
        proc.wait(timeout=10)


async def test_an_unpriced_model_costs_zero_and_is_entered_in_litellms_map_without_limits(caplog, capfd):
    from modularrsi.harness.model_limits import FALLBACK_CONTEXT_LIMIT, model_limits
    from modularrsi.models.litellm_backend import litellm_module

    name = "openai/unpriced-test-model"
    with FakeOpenAIServer(["one", "two", "three"]) as server, caplog.at_level(logging.WARNING):
        model = make_model(server, name)
        first, second = await model.complete(MESSAGES), await model.complete(MESSAGES)
        known = await make_model(server, "openai/gpt-4o-mini").complete(MESSAGES)
    assert first.cost_usd == second.cost_usd == 0.0
    assert litellm_module().model_cost[name]["input_cost_per_token"] == 0.0  # priced fast from now on
    assert model.context_limit() == DEFAULT_CONTEXT_LIMIT  # the entry claims no limits
    assert model_limits(name) == (FALLBACK_CONTEXT_LIMIT, None)
    assert known.cost_usd > 0  # a model the map knows keeps its price
    said = capfd.readouterr().err + "".join(r.getMessage() for r in caplog.records)
    assert "register_model" not in said  # entered quietly: LiteLLM warns about a partial entry
