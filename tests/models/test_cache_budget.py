"""Response cache and budget ledger, on real SQLite and real files."""

import asyncio
import hashlib
import json

import pytest

from modularrsi.models.base import BudgetExceeded, Message
from modularrsi.models.budget import BudgetLedger, MeteredModel
from modularrsi.models.cache import CachedModel, ResponseCache, request_key
from modularrsi.models.structured import response_schema, temperature
from modularrsi.offline.scripted import ScriptedModel

HI = [Message("user", "hello", "observation")]


def test_a_resumed_attempt_is_answered_from_the_cache_without_calling_again(tmp_path):
    inner = ScriptedModel(["first answer"])
    model = CachedModel(inner, ResponseCache(tmp_path / "c.sqlite"))
    one = asyncio.run(model.complete(HI))
    assert not one.cached and len(inner.calls) == 1
    reopened = CachedModel(ScriptedModel([]), ResponseCache(tmp_path / "c.sqlite"))
    again = asyncio.run(reopened.complete([Message("user", "hello", "completion_check")]))  # purpose is not sent
    assert again.content == "first answer" and again.cached and again.cost_usd == 0.0  # no second payment


def test_a_request_asked_again_in_one_attempt_is_a_new_draw_and_a_resume_replays_them_in_order(tmp_path):
    """A harness that re-sends the same prompt after a refused reply asks a stochastic model again: the
    attempt gets a second draw, not its first answer back (which would loop it on that answer for good)."""
    inner = ScriptedModel(["draw 1", "draw 2", "draw 3"])
    model = CachedModel(inner, ResponseCache(tmp_path / "c.sqlite"), scope={"task": "t", "attempt": 0})
    assert [asyncio.run(model.complete(HI)).content for _ in range(3)] == ["draw 1", "draw 2", "draw 3"]
    assert len(inner.calls) == 3
    resumed = CachedModel(ScriptedModel(["draw 4"]), ResponseCache(tmp_path / "c.sqlite"),
                          scope={"task": "t", "attempt": 0})
    assert [asyncio.run(resumed.complete(HI)).content for _ in range(4)] == ["draw 1", "draw 2", "draw 3", "draw 4"]


def test_cache_key_depends_on_model_messages_and_settings():
    base = request_key("m", HI)
    assert base == request_key("m", [Message("user", "hello", "other")])
    assert base != request_key("m2", HI)
    assert base != request_key("m", [Message("user", "hello!")])
    assert base != request_key("m", HI, {"temperature": 0.7})


def test_cache_key_of_a_structured_call_names_its_schema():
    """The same messages asked for under a JSON schema are another request (the schema shapes the reply);
    a free-text request's key is what it was before schemas were keyed."""
    free = request_key("m", HI)
    with response_schema("a", {"type": "object"}):
        shaped = request_key("m", HI)
    with response_schema("b", {"type": "object", "required": ["x"]}):
        other = request_key("m", HI)
    assert len({free, shaped, other}) == 3
    assert free == hashlib.sha256(json.dumps({"messages": [{"content": "hello", "role": "user"}], "model": "m",
                                              "scope": {}, "settings": {}}, sort_keys=True,
                                             separators=(",", ":")).encode()).hexdigest()


def test_cache_key_of_a_call_at_another_temperature_names_it():
    with temperature(0.9):
        hotter = request_key("m", HI, {"temperature": 0.2})
    with temperature(None):
        own = request_key("m", HI, {"temperature": 0.2})
    assert hotter != own == request_key("m", HI, {"temperature": 0.2})


def test_cache_key_names_the_attempt_so_k_attempts_never_collapse_into_one(tmp_path):
    """Identical prompts from attempts 0, 1 and 2 of a task are three requests; a repeat of one attempt
    (a resume) is a hit. Task, attempt index and seed each separate keys."""
    scope = {"task": "t", "attempt": 0, "seed": 11}
    keys = {request_key("m", HI, None, {**scope, field: value})
            for field, value in (("task", "u"), ("attempt", 1), ("seed", 12))}
    assert len(keys | {request_key("m", HI, None, scope)}) == 4
    inner = ScriptedModel(["a0", "a1", "a2"])
    cache = ResponseCache(tmp_path / "c.sqlite")
    answers = [asyncio.run(CachedModel(inner, cache, scope={**scope, "attempt": i}).complete(HI)).content
               for i in range(3)]
    assert answers == ["a0", "a1", "a2"] and len(inner.calls) == 3
    resumed = CachedModel(ScriptedModel([]), cache, scope={**scope, "attempt": 1})
    assert asyncio.run(resumed.complete(HI)).content == "a1"


def test_budget_stops_calls_once_the_cap_is_reached_and_persists(tmp_path):
    path = tmp_path / "budget.json"
    ledger = BudgetLedger(path, max_tokens=10)
    model = MeteredModel(ScriptedModel(["x" * 40, "never"]), ledger)
    asyncio.run(model.complete(HI))
    with pytest.raises(BudgetExceeded, match="token cap reached"):
        asyncio.run(model.complete(HI))
    ledger.flush()  # the writer thread writes behind; flush (also run at exit) writes now
    again = BudgetLedger(path, max_tokens=10)
    assert again.spent.calls == 1 and again.exhausted()
    assert BudgetLedger(path, max_tokens=10_000).exhausted() is None


def test_the_ledger_writes_behind_and_flush_writes_what_was_charged(tmp_path):
    from modularrsi.models.base import Completion

    path = tmp_path / "budget.json"
    ledger = BudgetLedger(path)
    for _ in range(50):
        ledger.charge(Completion("a", 1, 1, 0.0))
    ledger.flush()
    assert BudgetLedger(path).spent.calls == 50
    ledger.flush()  # nothing changed since: no write
    path.unlink()
    ledger.flush()
    assert not path.exists()


def test_cost_cap(tmp_path):
    ledger = BudgetLedger(None, max_cost_usd=0.01)
    from modularrsi.models.base import Completion

    ledger.charge(Completion("a", 1, 1, 0.02))
    assert "cost cap reached" in ledger.exhausted()
