"""`evaluate(..., share_from=...)` takes the finished attempts other evals made with the same draws: a second
candidate compared with the same baseline, or the same comparison on more tasks, pays only for what it adds,
and a taken baseline attempt is still replayed by the candidate. Real Harbor trials in LocalSandbox, a
LiteLLM-named model served by FakeOpenAIServer that tosses a coin (tests/support/coin_model.py)."""

from __future__ import annotations

import asyncio
import json

import pytest
from coin_model import coin_model, model_calls, rewards
from testutil import write_task

from modularrsi.evolve.eval_share import merge_cache
from modularrsi.evolve.evaluate import EvalResult, evaluate
from modularrsi.harness import BASELINE
from modularrsi.harness.library import load_generation, write_generation
from modularrsi.models.base import Completion
from modularrsi.models.cache import ResponseCache
from modularrsi.rollouts.config import RunConfig
from modularrsi.util.errors import UserError


def template(server, tasks, seed=0) -> RunConfig:
    return RunConfig(tasks=tasks, k=2, concurrency=2, env="local", seed=seed,
                     roles={"agent": {"model": "openai/fake-model", "api_base": server.base_url,
                                      "api_key_env": "MODULARRSI_TEST_KEY", "max_retries": 0}})


def results(out, side) -> dict[str, bytes]:
    return {p.parent.name: p.read_bytes() for p in (out / side / "trials").glob("*/result.json")}


@pytest.fixture
def candidates(tmp_path):
    """Two inert changes of gen_0 with different ids (a generation's id is its functions' content)."""
    gen = load_generation(BASELINE)
    made = []
    for i in range(2):
        sources = {key: fn.path.read_text() + f"\n# inert change {i}\n" for key, fn in gen.functions.items()}
        made.append(write_generation(tmp_path / f"gen-{i}", sources, gen.default_active(), [gen.id], "test").path)
    assert load_generation(made[0]).id != load_generation(made[1]).id
    return made


def test_the_same_comparison_on_more_tasks_pays_only_for_the_added_ones(tmp_path, task_factory, candidates,
                                                                        monkeypatch):
    monkeypatch.setenv("MODULARRSI_TEST_KEY", "k")
    first, added = task_factory(), task_factory()
    with coin_model() as server:
        asyncio.run(evaluate(template(server, [first]), BASELINE, candidates[0], tmp_path / "a"))
        before = len(server.requests)
        result = asyncio.run(evaluate(template(server, [first, added]), BASELINE, candidates[0], tmp_path / "b",
                                      share_from=[tmp_path / "a"]))
        asked = len(server.requests) - before
    for side in ("baseline", "candidate"):  # the first task's attempts are the first eval's, byte for byte
        a, b = results(tmp_path / "a", side), results(tmp_path / "b", side)
        assert sorted(a) == [f"{first.name}__a0", f"{first.name}__a1"] and {t: b[t] for t in a} == a
        assert json.loads((tmp_path / "b" / side / "shared.json").read_text()) == {t: str(tmp_path / "a") for t in a}
    assert result.shared == {"baseline": 2, "candidate": 2} and result.tasks == 2
    new = [p for p in (tmp_path / "b" / "baseline" / "trials").glob(f"{added.name}__a*/agent/episode.json")]
    assert len(new) == 2 and asked == sum(json.loads(p.read_text())["model_calls"] for p in new) > 0
    assert EvalResult.model_validate_json((tmp_path / "b" / "eval.json").read_text()).shared == result.shared


def test_another_candidate_takes_the_baseline_and_still_replays_it(tmp_path, task_factory, candidates, monkeypatch):
    """The baseline's attempts and replies come from the first eval: the second candidate (inert too) asks the
    model nothing at all, and its attempts equal the baseline's."""
    monkeypatch.setenv("MODULARRSI_TEST_KEY", "k")
    task = task_factory()
    with coin_model() as server:
        asyncio.run(evaluate(template(server, [task]), BASELINE, candidates[0], tmp_path / "a"))
        before = len(server.requests)
        result = asyncio.run(evaluate(template(server, [task]), BASELINE, candidates[1], tmp_path / "b",
                                      share_from=[tmp_path / "a"]))
        assert len(server.requests) == before
    assert result.shared == {"baseline": 2}  # another generation's attempts are never taken as this one's
    assert rewards(tmp_path / "b" / "candidate") == rewards(tmp_path / "a" / "baseline")
    assert model_calls(tmp_path / "b" / "candidate") > 0  # its calls were answered from the merged cache


def test_attempts_drawn_otherwise_are_not_taken(tmp_path, task_factory, candidates, monkeypatch):
    """Another run seed, or a task of the same name whose files differ: every attempt is made here."""
    monkeypatch.setenv("MODULARRSI_TEST_KEY", "k")
    task = task_factory()
    changed = write_task(tmp_path / "changed", name=task.name,
                         test_sh="#!/bin/bash\necho 0 > /logs/verifier/reward.txt\n")
    with coin_model() as server:
        asyncio.run(evaluate(template(server, [task]), BASELINE, candidates[0], tmp_path / "a"))
        seeded = asyncio.run(evaluate(template(server, [task], seed=1), BASELINE, candidates[0], tmp_path / "b",
                                      share_from=[tmp_path / "a"]))
        edited = asyncio.run(evaluate(template(server, [changed]), BASELINE, candidates[0], tmp_path / "c",
                                      share_from=[tmp_path / "a"]))
    assert seeded.shared == edited.shared == {}
    assert all(model_calls(tmp_path / run / "baseline") > 0 for run in ("b", "c"))


def test_a_source_that_is_no_eval_is_refused_in_one_line(tmp_path, task_factory, candidates):
    (tmp_path / "empty").mkdir()
    config = RunConfig(tasks=[task_factory()], k=1, env="local")
    for source, said in ((tmp_path / "empty", "no eval directory there"), (tmp_path / "e", "this eval itself")):
        with pytest.raises(UserError, match=said) as error:
            asyncio.run(evaluate(config, BASELINE, candidates[0], tmp_path / "e", share_from=[source]))
        assert "\n" not in str(error.value)


def test_merging_a_cache_adds_the_replies_it_lacks_and_keeps_its_own(tmp_path):
    source, target = ResponseCache(tmp_path / "source.sqlite"), ResponseCache(tmp_path / "target.sqlite")
    source.put("k1", Completion("theirs", 1, 2, 0.0, "m"))
    source.put("k2", Completion("theirs too", 1, 2, 0.0, "m"))
    target.put("k1", Completion("mine", 1, 2, 0.0, "m"))
    source.close()
    merge_cache(tmp_path / "source.sqlite", tmp_path / "target.sqlite")
    assert (target.get("k1").content, target.get("k2").content, len(target)) == ("mine", "theirs too", 2)
    target.close()


def test_eval_takes_another_evals_attempts_from_the_command_line(tmp_path, task_factory):
    """`modularrsi eval --share-from DIR` (sim: deterministic, uncached): the second eval runs nothing it can take,
    says how many it took, and keeps --share-from in its config.yaml for --resume."""
    from typer.testing import CliRunner

    from modularrsi.cli import app

    task = task_factory()
    base = ["eval", "--generation", str(BASELINE), "--tasks", str(task), "-k", "1", "--env", "local"]
    first = CliRunner().invoke(app, [*base, "--out", str(tmp_path / "a")], env={"COLUMNS": "400"})
    assert first.exit_code == 0, first.output
    second = CliRunner().invoke(app, [*base, "--share-from", str(tmp_path / "a"), "--out", str(tmp_path / "b")],
                                env={"COLUMNS": "400"})
    assert second.exit_code == 0, second.output
    assert "attempts taken from other evals" in second.output and "baseline 1, candidate 1" in second.output
    assert results(tmp_path / "a", "baseline") == results(tmp_path / "b", "baseline")
    assert "share_from" in (tmp_path / "b" / "config.yaml").read_text()
