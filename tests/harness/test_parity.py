"""Parity: ModularAgent(gen_0) and Harbor's Terminus-2, same scripted model, same task.

Each case runs one episode with both agents (:mod:`parity`): the requests must be byte-identical,
the keystrokes, number of calls, reward and trial ending the same, and the ATIF trajectories
(sub-trajectories included) equal field by field once volatile fields are normalised.
"""

from __future__ import annotations

import json
import os

import pytest
from parity import assert_parity, keystrokes, reply, run_pair

from modularrsi.offline.fake_server import FakeOpenAIServer

ORDINARY = [
    reply([("ls -la\n", 0.1)]),
    "I think I should write the file now, but I forgot the JSON.",          # parse error, fed back
    reply([("echo done > /app/done.txt\n", 0.1), ("cat /app/done.txt\n", 0.1)]),
    'Some text before {"analysis": "ok", "plan": "p", "commands": [{"keystrokes": "pwd\\n", "duration": 0.1}]}',
    reply([], done=True),                                                      # first claim: "are you sure?"
    reply([("true\n", 0.1)]),                                                  # not a claim: resets
    reply([], done=True),
    reply([], done=True),                                                      # confirmed
]
#: A reply cut off at the output limit whose JSON the parser could repair: nothing of it may run.
CUT_OFF = {"content": '{"analysis": "a", "plan": "p", "commands": [{"keystrokes": "echo cut > /app/cut.txt\\n", '
                      '"duration": 0.1}', "finish_reason": "length"}
LONG = "seq -s ' ' 1 3000\n"  # one 14 KB line: more than the 10 KB an observation keeps (waits: 1 s, so
# that the whole line is on the screen when both agents read it, even on a busy machine)


def window(tokens: int) -> dict:
    """``run_pair`` settings giving both agents a context window of ``tokens`` (an unknown model's name)."""
    return {"model": "openai/fake-window", "terminus": {"model_info": {"max_input_tokens": tokens}},
            "modular": {"context_limit": tokens}}


@pytest.fixture(autouse=True)
def openai_key(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-parity-test")


async def test_an_ordinary_episode(task_factory, tmp_path):
    terminus, modular = await run_pair(task_factory(name="parity"), tmp_path, ORDINARY)
    assert_parity(terminus, modular)
    assert keystrokes(modular.main)[:2] == ["ls -la\n", "echo done > /app/done.txt\n"]
    assert len(modular.prompts) == len(ORDINARY) and modular.outcome.reward == 1.0
    assert modular.episode["ending"] == "completed"


async def test_a_priced_model_costs_each_step_as_terminus2_costs_it(task_factory, tmp_path):
    """A model LiteLLM can price (its local cost map): each step's cost is the difference of the running
    totals, as Terminus-2 takes it, so the figures agree to the last digit, and so do the totals."""
    terminus, modular = await run_pair(task_factory(name="parity"), tmp_path, ORDINARY, model="openai/gpt-4o-mini")
    assert_parity(terminus, modular)
    costs = [step["metrics"].get("cost_usd") for step in modular.main["steps"] if step["source"] == "agent"]
    assert all(cost and cost > 0 for cost in costs) and modular.agent_result["cost_usd"] > 0


async def test_a_cut_off_reply_runs_nothing_and_is_answered_as_terminus2_does(task_factory, tmp_path):
    script = [reply([("ls\n", 0.1)]), CUT_OFF, reply([("echo done > /app/done.txt\n", 0.1)]),
              reply([], done=True), reply([], done=True)]
    terminus, modular = await run_pair(task_factory(name="parity"), tmp_path, script)
    assert_parity(terminus, modular)
    assert "echo cut > /app/cut.txt\n" not in keystrokes(modular.main)
    assert "NONE of the actions you just requested were performed" in modular.prompts[2][-1]["content"]
    assert len(modular.prompts) == len(script) and modular.outcome.reward == 1.0


async def test_long_outputs_and_an_unknown_models_context_window(task_factory, tmp_path):
    """Eight long observations (about 40,000 tokens in all) with default settings: limited twice, as
    Terminus-2 limits them, and never summarised (an unknown model's window is 1,000,000 tokens)."""
    script = [reply([(LONG, 1.0)]) for _ in range(8)] + [
        reply([("seq -s ' ' 1 4000\n", 1.0)], done=True),                           # a long claim: limited once
        reply([("seq -s ' ' 1 5000; echo done > /app/done.txt\n", 1.0)], done=True)]  # confirmed, long
    terminus, modular = await run_pair(task_factory(name="parity"), tmp_path, script)
    assert_parity(terminus, modular)
    assert "interior bytes omitted" in modular.prompts[1][-1]["content"]
    assert len(modular.prompts) == len(script) and modular.episode["compactions"] == 0


async def test_the_shell_exits(task_factory, tmp_path):
    script = [reply([("exit\n", 0.5)]), reply([("ls\n", 0.1)]), reply([("ls\n", 0.1)])]
    terminus, modular = await run_pair(task_factory(name="parity"), tmp_path, script)
    assert_parity(terminus, modular)
    assert len(modular.prompts) == len(terminus.prompts) < len(script)
    assert modular.episode["ending"] == "session_ended" and modular.outcome.reward == 0.0


async def test_summarisation_with_both_context_limits_set_equal(task_factory, tmp_path):
    """The first turns fit a 13,000-token window; the long observation does not leave the 8,000 free
    tokens both agents keep, so both hand off through the same three summary calls before turn 3."""
    script = [reply([(LONG, 1.0)]), reply([("echo done > /app/done.txt\n", 0.1)]),
              "Summary: listed numbers, wrote /app/done.txt.", "1. Is /app/done.txt there?",
              "1. Yes, it contains done.", reply([], done=True), reply([], done=True)]
    terminus, modular = await run_pair(task_factory(name="parity"), tmp_path, script, **window(13_000))
    assert_parity(terminus, modular)
    assert sorted(modular.trajectories) == ["trajectory.json"] + [
        f"trajectory.summarization-1-{kind}.json" for kind in ("answers", "questions", "summary")]
    assert modular.prompts[-2][0] == terminus.prompts[0][0]  # the initial prompt, with its reply format
    assert len(modular.prompts) == len(script) and modular.episode["compactions"] == 1


async def test_a_handoff_after_a_failed_summary_is_numbered_as_terminus2_numbers_it(task_factory, tmp_path):
    """The first proactive summary is cut off at the output limit: the turn goes on unsummarised, and the
    next turn's handoff is summarisation 2 (Terminus-2 counts the failed one)."""
    script = [reply([(LONG, 1.0)]), reply([("echo done > /app/done.txt\n", 0.1)]),
              {"content": "Summary: listed numb", "finish_reason": "length"}, reply([], done=True),
              "Summary: listed numbers, wrote /app/done.txt.", "1. Is /app/done.txt there?",
              "1. Yes, it contains done.", reply([], done=True)]
    terminus, modular = await run_pair(task_factory(name="parity"), tmp_path, script, **window(13_000))
    assert_parity(terminus, modular)
    assert sorted(modular.trajectories) == ["trajectory.json"] + [
        f"trajectory.summarization-2-{kind}.json" for kind in ("answers", "questions", "summary")]
    assert len(modular.prompts) == len(script) and modular.episode["compactions"] == 1


async def test_a_context_window_under_the_free_token_threshold(task_factory, tmp_path):
    """A 6,000-token window leaves under 8,000 tokens free even before the first turn: the first prompt
    is the bare instruction (recorded as a user step, with no compaction), and every later turn hands
    off through the three summary calls, as Terminus-2 does."""
    handoff = ["Summary: wrote /app/done.txt.", "1. Is it there?", "1. Yes."]
    script = [reply([("echo done > /app/done.txt\n", 0.1)]), *handoff, reply([], done=True), *handoff,
              reply([], done=True)]
    terminus, modular = await run_pair(task_factory(name="parity"), tmp_path, script, **window(6_000))
    assert_parity(terminus, modular)
    assert modular.prompts[0] == [{"role": "user", "content": modular.main["steps"][1]["message"]}]
    assert "Current Terminal Screen" not in modular.prompts[0][0]["content"]
    assert len(modular.prompts) == len(script) and modular.episode["compactions"] == 2


async def test_a_context_overflow_is_summarised_as_terminus2_does(task_factory, tmp_path):
    script = [reply([("echo done > /app/done.txt\n", 0.1)]), {"context_length": True},
              "Summary: wrote /app/done.txt.", "1. Is it there?", "1. Yes.", reply([], done=True),
              reply([], done=True)]
    terminus, modular = await run_pair(task_factory(name="parity"), tmp_path, script)
    assert_parity(terminus, modular)
    assert len(modular.trajectories) == 4 and modular.episode["compactions"] == 1
    assert len(modular.prompts) == len(script) and modular.outcome.reward == 1.0


async def test_an_overflow_the_fallbacks_cannot_fix_goes_on_with_terminus2s_stock_reply(task_factory, tmp_path):
    """The summary, the short summary and the handoff itself all overflow: the turn goes on with
    "Technical difficulties…", which does not parse. gen_0 records the fallback compaction (a system
    and a user step, see docs/terminus-2-parity.md, deliberate differences); Terminus-2 records none."""
    script = [reply([("echo done > /app/done.txt\n", 0.1)])] + [{"context_length": True}] * 4 + [
        reply([], done=True), reply([], done=True)]
    terminus, modular = await run_pair(task_factory(name="parity"), tmp_path, script)
    steps = modular.main["steps"]
    at = next(i for i, step in enumerate(steps) if step["source"] == "system")
    assert steps[at + 1]["source"] == "user" and steps[at + 2]["extra"]["parse_error"]
    kept = steps[:at] + steps[at + 2:]
    modular.trajectories["trajectory.json"] = {**modular.main, "steps": [
        {**step, "step_id": number} for number, step in enumerate(kept, 1)]}
    assert_parity(terminus, modular)
    assert len(modular.prompts) == len(script) and modular.outcome.reward == 1.0


#: Reply fields of every other JSON type Harbor's parser passes through (with warnings): numbers, null,
#: objects, lists and booleans as analysis and plan; a string, a number and falsy values as task_complete.
ODD_TYPES = [
    '{"analysis": 5, "plan": null, "commands": [{"keystrokes": "echo done > /app/done.txt\\n", "duration": 0.1}], '
    '"task_complete": false}',
    '{"analysis": {"seen": [1, 2]}, "plan": ["look", "write"], "commands": [], "task_complete": 0}',
    '{"analysis": true, "plan": 2.5, "commands": [], "task_complete": "yes"}',    # a claim: "are you sure?"
    '{"analysis": null, "plan": false, "commands": [], "task_complete": 1}',      # confirmed
]


async def test_reply_fields_of_other_json_types_are_read_as_terminus2_reads_them(task_factory, tmp_path):
    terminus, modular = await run_pair(task_factory(name="parity"), tmp_path, ODD_TYPES)
    assert_parity(terminus, modular)
    messages = [step.get("message") for step in modular.main["steps"] if step["source"] == "agent"]
    assert messages == ["Analysis: 5", "Analysis: {'seen': [1, 2]}\nPlan: ['look', 'write']",
                        "Analysis: True\nPlan: 2.5", ""]
    assert len(modular.prompts) == len(ODD_TYPES) and modular.episode["ending"] == "completed"
    assert modular.outcome.reward == 1.0


async def test_reasoning_content_and_cached_tokens_are_recorded_as_terminus2_records_them(task_factory, tmp_path):
    """A served ``reasoning_content``, a ``<think>`` block LiteLLM moves there, and prompt tokens a
    server reports from its prefix cache: in each step, in the totals and in the trial's agent result."""
    script = [{"content": reply([("ls\n", 0.1)]), "reasoning_content": "First look around.", "cached_tokens": 40},
              {"content": "<think>Write it now.</think>" + reply([("echo done > /app/done.txt\n", 0.1)]),
               "cached_tokens": 90},
              reply([], done=True), {"content": reply([], done=True), "cached_tokens": 7}]
    terminus, modular = await run_pair(task_factory(name="parity"), tmp_path, script)
    assert_parity(terminus, modular)
    steps = [step for step in modular.main["steps"] if step["source"] == "agent"]
    assert steps[0]["reasoning_content"] == "First look around."
    assert [step["metrics"].get("cached_tokens") for step in steps] == [40, 90, None, 7]
    assert modular.main["final_metrics"]["total_cached_tokens"] == 137
    assert modular.agent_result["n_cache_tokens"] == 137 and modular.agent_result["rollout_details"] == []


@pytest.mark.slow
async def test_terminal_recording_where_asciinema_cannot_be_installed(task_factory, tmp_path):
    """Both agents try to install asciinema (offline, in vain), type the recording's set-up commands
    and go on without a recording."""
    script = [reply([("echo done > /app/done.txt\n", 0.1)]), reply([], done=True), reply([], done=True)]
    terminus, modular = await run_pair(task_factory(name="parity"), tmp_path, script,
                                       terminus={"record_terminal_session": True},
                                       modular={"record_terminal_session": True})
    assert_parity(terminus, modular)
    assert not (modular.agent_dir / "recording.cast").exists() and not (terminus.agent_dir / "recording.cast").exists()
    assert len(modular.prompts) == len(script) and modular.outcome.reward == 1.0


def test_no_purpose_tag_or_key_reaches_the_wire(tmp_path):
    import asyncio

    from modularrsi.models.base import Message
    from modularrsi.models.litellm_backend import LiteLLMModel
    from modularrsi.models.settings import ModelSettings

    os.environ["MODULARRSI_PLANTED"] = "sk-planted-secret-999"
    with FakeOpenAIServer(["hello"]) as server:
        model = LiteLLMModel(ModelSettings(model="openai/fake-model", api_base=server.base_url,
                                           api_key_env="MODULARRSI_PLANTED"))
        asyncio.run(model.complete([Message("user", "hi", "completion_check")]))
        body = json.dumps(server.requests)
    assert "purpose" not in body and "completion_check" not in body
    assert "sk-planted-secret-999" not in repr(model)
