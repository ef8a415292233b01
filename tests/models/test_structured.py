"""Structured replies over real HTTP: JSON-schema response_format, the refusal fallback, repair-and-retry,
cut-off and empty replies, role settings and call accounting."""

from __future__ import annotations

import json

import pytest

from modularrsi.models.base import BudgetExceeded, Completion, Message
from modularrsi.models.litellm_backend import LiteLLMModel
from modularrsi.models.roles import ModelRoles
from modularrsi.models.settings import ModelSettings
from modularrsi.models.structured import ask_json
from modularrsi.offline.fake_server import FakeOpenAIServer
from modularrsi.offline.scripted import ScriptedModel

SCHEMA = {"type": "object", "required": ["ok"], "properties": {"ok": {"type": "boolean"}}}
ASK = [Message("user", "Is it ok? Answer as JSON.", "analysis_request")]


@pytest.fixture(autouse=True)
def offline(monkeypatch):
    monkeypatch.setenv("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    monkeypatch.setenv("FAKE_STRUCTURED_KEY", "sk-dummy")


def parse(text: str) -> tuple[bool | None, str | None]:
    try:
        value = json.loads(text)
    except ValueError:
        return None, "not JSON"
    if not isinstance(value, dict) or not isinstance(value.get("ok"), bool):
        return None, "'ok' must be true or false"
    return value["ok"], None


def model(server: FakeOpenAIServer, **kwargs) -> LiteLLMModel:
    return LiteLLMModel(ModelSettings(model="openai/fake-model", api_base=server.base_url,
                                      api_key_env="FAKE_STRUCTURED_KEY", timeout_s=5, max_retries=2, **kwargs),
                        backoff_s=0.01)


async def test_schema_is_sent_as_response_format_only_inside_a_structured_call():
    with FakeOpenAIServer(['{"ok": true}', "plain"]) as server:
        llm = model(server, max_output_tokens=64)
        reply = await ask_json(llm, ASK, "verdict", SCHEMA, parse, '{"ok": true}')
        await llm.complete(ASK)
    assert reply.value is True and reply.calls == 1 and reply.repairs == 0 and reply.output_tokens > 0
    structured, plain = server.requests
    assert structured["response_format"] == {"type": "json_schema", "json_schema": {
        "name": "verdict", "schema": SCHEMA, "strict": True}}
    assert structured["max_tokens"] == 64 and "response_format" not in plain
    assert llm.stats.usage.calls == 2 and llm.stats.usage.by_purpose == {"structured": 1, "plain": 1}


async def test_an_endpoint_that_refuses_the_schema_is_asked_without_it_from_then_on():
    refusal = {"status": 400, "message": "response_format type json_schema is not supported by this server"}
    with FakeOpenAIServer([refusal, '```json\n{"ok": false}\n```', "not json", '{"ok": true}']) as server:
        llm = model(server)
        first = await ask_json(llm, ASK, "verdict", SCHEMA, lambda t: parse(t.strip("`json\n")), "{}")
        second = await ask_json(llm, ASK, "verdict", SCHEMA, parse, '{"ok": true}')
    assert first.value is False and second.value is True and second.repairs == 1
    assert "response_format" in server.requests[0]
    assert all("response_format" not in r for r in server.requests[1:])
    assert llm.stats.schema_refused and llm.stats.failed_attempts == 1


async def test_structured_output_off_never_sends_a_schema():
    with FakeOpenAIServer(['{"ok": true}']) as server:
        await ask_json(model(server, structured_output=False), ASK, "verdict", SCHEMA, parse, "{}")
    assert "response_format" not in server.requests[0]


@pytest.mark.parametrize("turn, problem", [
    ({"content": '{"ok": tr', "finish_reason": "length"}, "cut off at the token limit"),
    ("", "empty reply"),
    ("Sure! The answer is yes.", "not JSON"),
    ('{"ok": "maybe"}', "'ok' must be true or false"),
])
async def test_unusable_replies_are_repaired_once_then_reported(turn, problem):
    with FakeOpenAIServer([turn, turn]) as server:
        llm = model(server)
        reply = await ask_json(llm, ASK, "verdict", SCHEMA, parse, '{"ok": true}')
    assert reply.value is None and problem in reply.error and reply.calls == 2 and len(reply.problems) == 2
    repair = server.requests[1]["messages"]
    assert repair[-2]["role"] == "assistant" and problem in repair[-1]["content"]
    assert llm.stats.cut_off == (2 if "cut off" in problem else 0)


async def test_a_repaired_reply_is_used():
    with FakeOpenAIServer(["I think so", '{"ok": true}']) as server:
        reply = await ask_json(model(server), ASK, "verdict", SCHEMA, parse, '{"ok": true}')
    assert reply.value is True and reply.repairs == 1 and reply.problems == ["not JSON"]


async def test_a_failed_call_is_reported_and_a_budget_stop_propagates():
    with FakeOpenAIServer([{"status": 500}] * 3) as server:
        reply = await ask_json(model(server), ASK, "verdict", SCHEMA, parse, "{}")
    assert reply.value is None and reply.calls == 0 and reply.error.startswith("model error:")

    class Capped(ScriptedModel):
        async def complete(self, messages) -> Completion:
            raise BudgetExceeded("token cap reached")

    with pytest.raises(BudgetExceeded):
        await ask_json(Capped([]), ASK, "verdict", SCHEMA, parse, "{}")


def test_a_roles_settings_reach_the_model_layer_whole():
    roles = ModelRoles.model_validate({"agent": {"model": "openai/a", "temperature": 0.6},
                                       "analyst": {"model": "openai/a", "temperature": 0.0, "timeout_s": 300,
                                                   "max_output_tokens": 400, "max_retries": 1}})
    assert roles.for_role("agent").temperature == 0.6
    analyst = roles.for_role("analyst")
    assert LiteLLMModel(analyst).settings == analyst  # handed whole, not flattened
    assert (analyst.timeout_s, analyst.max_retries, analyst.structured_output) == (300.0, 1, True)
