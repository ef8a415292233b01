"""Common random numbers through the response cache: a side replays its paired side's cache.sqlite
(read-only) for the attempt's common prefix with it, over real HTTP against FakeOpenAIServer."""

from __future__ import annotations

import hashlib
import itertools
import sqlite3

import pytest

from modularrsi.models.base import Completion, Message
from modularrsi.models.cache import ResponseCache
from modularrsi.models.registry import make_model
from modularrsi.models.settings import ModelSettings
from modularrsi.offline.fake_server import FakeOpenAIServer

KEY_ENV = "MODULARRSI_TEST_KEY"
SCOPE = {"task": "t", "attempt": 0, "seed": 7}


@pytest.fixture(autouse=True)
def planted_key(monkeypatch):
    monkeypatch.setenv(KEY_ENV, "sk-test")
    monkeypatch.setenv("LITELLM_LOCAL_MODEL_COST_MAP", "True")


@pytest.fixture
def server():
    """A 'stochastic' model: every call draws a reply no earlier call got."""
    draws = itertools.count()
    with FakeOpenAIServer(responder=lambda request: f"draw {next(draws)}") as fake:
        yield fake


def side(server, tmp_path, name, replay=None, scope=SCOPE):
    return make_model(ModelSettings(model="openai/fake-model", api_base=server.base_url, api_key_env=KEY_ENV,
                                    max_retries=0),
                      cache_path=tmp_path / name / "cache.sqlite", replay_path=replay, cache_scope=scope)


async def episode(model, observations: list[str]) -> list[Completion]:
    """A conversation: each observation is sent with the whole history (replies included)."""
    history, replies = [Message("system", "You are an agent.", "instruction")], []
    for text in observations:
        history.append(Message("user", text))
        replies.append(await model.complete(history))
        history.append(Message("assistant", replies[-1].content, "reply"))
    return replies


def rows_and_digest(path):
    """Row count (read through a read-only connection, which never checkpoints), bytes and mtime."""
    db = sqlite3.connect(f"{path.as_uri()}?mode=ro", uri=True)
    rows = db.execute("SELECT COUNT(*) FROM responses").fetchone()[0]
    db.close()
    return rows, hashlib.sha256(path.read_bytes()).hexdigest(), path.stat().st_mtime_ns


async def test_an_inert_change_replays_every_reply_and_calls_the_model_zero_times(server, tmp_path):
    parent = await episode(side(server, tmp_path, "parent"), ["o1", "o2", "o3"])
    asked = len(server.requests)
    staging = await episode(side(server, tmp_path, "staging", tmp_path / "parent" / "cache.sqlite"),
                            ["o1", "o2", "o3"])
    assert len(server.requests) == asked == 3
    assert [c.content for c in staging] == [c.content for c in parent]
    assert all(c.cached and c.cost_usd == 0.0 for c in staging)


async def test_the_model_is_called_from_the_first_request_that_differs(server, tmp_path):
    parent = await episode(side(server, tmp_path, "parent"), ["o1", "o2", "o3", "o4"])
    replay = tmp_path / "parent" / "cache.sqlite"
    staging = await episode(side(server, tmp_path, "staging", replay), ["o1", "o2", "changed", "o4"])
    assert [c.content for c in staging[:2]] == [c.content for c in parent[:2]] and staging[0].cached
    reached = server.requests[4:]  # what the staging side sent: its third and fourth requests only
    assert [r["messages"][-1]["content"] for r in reached] == ["changed", "o4"]
    assert not staging[2].cached and staging[2].content not in {c.content for c in parent}
    resumed = await episode(side(server, tmp_path, "staging", replay), ["o1", "o2", "changed", "o4"])
    assert [c.content for c in resumed] == [c.content for c in staging] and len(server.requests) == 6
    other_attempt = await episode(side(server, tmp_path, "other", replay, {**SCOPE, "attempt": 1}), ["o1"])
    assert not other_attempt[0].cached  # attempt 1 is paired with the parent's attempt 1, not its attempt 0


async def test_a_prompt_sent_again_gets_the_paired_sides_nth_draw_at_its_nth_asking(server, tmp_path):
    """A harness that re-sends one prompt (a retry after a refused reply) asks anew each time; the paired side
    replays those draws in the same order, so an identical harness still calls the model zero times."""
    prompt = [Message("system", "You are an agent.", "instruction"), Message("user", "o1")]
    parent = side(server, tmp_path, "parent")
    drawn = [(await parent.complete(prompt)).content for _ in range(3)]
    assert len(set(drawn)) == 3 and len(server.requests) == 3
    staging = side(server, tmp_path, "staging", tmp_path / "parent" / "cache.sqlite")
    assert [(await staging.complete(prompt)).content for _ in range(3)] == drawn and len(server.requests) == 3
    fourth = await staging.complete(prompt)  # beyond what the parent asked: the model, and the prefix ends
    assert not fourth.cached and fourth.content not in drawn and len(server.requests) == 4


async def test_after_the_prefix_ends_the_replay_is_not_read_even_for_a_request_it_holds(server, tmp_path):
    """Strict prefix: a later request that happens to equal one the paired side made is a fresh draw
    (its recorded reply was drawn on a trajectory this one left)."""
    model = side(server, tmp_path, "parent")
    first = Message("user", "o1")
    recorded = await model.complete([first])
    staging = side(server, tmp_path, "staging", tmp_path / "parent" / "cache.sqlite")
    await staging.complete([Message("user", "something else")])
    again = await staging.complete([first])
    assert not again.cached and again.content != recorded.content and len(server.requests) == 3


async def test_a_missing_replay_file_is_an_empty_cache_and_is_not_created(server, tmp_path):
    missing = tmp_path / "parent" / "cache.sqlite"
    replies = await episode(side(server, tmp_path, "staging", missing), ["o1", "o2"])
    assert len(server.requests) == 2 and not any(c.cached for c in replies)
    assert not missing.exists() and not missing.parent.exists()
    assert len(ResponseCache(missing, read_only=True)) == 0


async def test_the_replay_file_is_never_written(server, tmp_path):
    parent = side(server, tmp_path, "parent")
    await episode(parent, ["o1", "o2", "o3"])
    parent.cache.close()  # the parent run is over: its writes are checkpointed into the file
    replay = tmp_path / "parent" / "cache.sqlite"
    before = rows_and_digest(replay)
    await episode(side(server, tmp_path, "staging", replay), ["o1", "changed", "o3", "o4"])
    assert len(server.requests) == 6  # the staging side did call the model and cache its replies
    assert rows_and_digest(replay) == before and before[0] == 3
    assert len(ResponseCache(tmp_path / "staging" / "cache.sqlite")) == 4
    with pytest.raises(ValueError, match="read-only"):
        ResponseCache(replay, read_only=True).put("k", Completion("x"))
    assert rows_and_digest(replay) == before


def test_sim_and_scripted_models_stay_uncached_with_a_replay(tmp_path, task_factory):
    from modularrsi.models.cache import CachedModel

    script = tmp_path / "script.json"
    script.write_text('["a"]')
    for name in ("sim", f"scripted:{script}"):
        model = make_model(name, cache_path=tmp_path / "c.sqlite", replay_path=tmp_path / "r.sqlite",
                           privileged={"seed": 1, "task_dir": task_factory()})
        assert not isinstance(model, CachedModel)
