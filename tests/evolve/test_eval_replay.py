"""`evaluate` couples its sides through the response cache: the candidate replays the baseline's
cache.sqlite, so an inert change asks a (stochastic) real model nothing and gives no discordant pair.
Real Harbor trials in LocalSandbox, a LiteLLM-named model served by FakeOpenAIServer."""

from __future__ import annotations

import asyncio

from coin_model import coin_model, model_calls, rewards

from modularrsi.evolve.evaluate import EvalResult, evaluate
from modularrsi.evolve.libraryops import copy_generation
from modularrsi.harness import BASELINE
from modularrsi.rollouts.config import RunConfig


def test_an_inert_change_makes_no_model_call_and_no_discordant_pair(tmp_path, task_factory, monkeypatch):
    monkeypatch.setenv("MODULARRSI_TEST_KEY", "k")
    candidate = tmp_path / "candidate-gen"
    copy_generation(BASELINE, candidate, created_by="test: an inert change")
    out = tmp_path / "eval"
    with coin_model() as server:
        template = RunConfig(tasks=[task_factory()], k=4, concurrency=4, env="local",
                             roles={"agent": {"model": "openai/fake-model", "api_base": server.base_url,
                                              "api_key_env": "MODULARRSI_TEST_KEY", "max_retries": 0}})
        result = asyncio.run(evaluate(template, BASELINE, candidate, out))
        asked = len(server.requests)
    base, cand = rewards(out / "baseline"), rewards(out / "candidate")
    assert sorted(base.values()) == [0.0, 0.0, 1.0, 1.0]  # the model's coin was tossed on the baseline side
    assert cand == base and result.fail_to_pass == result.pass_to_fail == 0 and result.coupled
    assert asked == model_calls(out / "baseline") > 0 and model_calls(out / "candidate") == asked
    saved = EvalResult.model_validate_json((out / "eval.json").read_text())
    assert saved.coupled and saved.candidate.cost_usd == 0.0
