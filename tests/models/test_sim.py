"""The sim model on its own: it reads only roles and content, and its world decides how it fails."""

from __future__ import annotations

import asyncio
import json
import re

import pytest
from harbor.agents.terminus_2.terminus_json_plain_parser import TerminusJSONPlainParser
from testutil import REPO

from modularrsi.models.base import Message
from modularrsi.offline.sim import FIXABLE, MODES, SimModel, SimWorld, world_for
from modularrsi.offline.sim.reading import load_task, words

TASK = load_task(REPO / "tasks" / "pool" / "crm-contacts-dedup-by-email")
PROMPT = ("Answer in JSON with analysis, plan, commands (each with keystrokes and duration) and task_complete.\n"
          f"Task description:\n{TASK.instruction}\n")
CERTAIN = 50.0  # a rate that makes a mode certain whatever the task's propensity


def world(**rates: float) -> SimWorld:
    return SimWorld(rates={m: rates.get(m, 0.0) for m in MODES}, explore=0.0, recover_plain=0.0,
                    resend_unaided=0.0, loop_persist=1.0, loop_break=1.0)


class Episode:
    """Drives a sim through a conversation: a step's marker shows in the next observation."""

    def __init__(self, sim_world: SimWorld, seed: int = 1):
        self.sim = SimModel(TASK, seed, sim_world)
        self.messages = [Message("user", PROMPT, "instruction")]

    def reply(self) -> dict:
        text = asyncio.run(self.sim.complete(self.messages)).content
        self.messages.append(Message("assistant", text, "reply"))
        self.last_text = text
        try:
            return json.loads(text)
        except ValueError:
            return {"malformed": text, "commands": [], "task_complete": False}

    def say(self, content: str, purpose: str = "observation") -> dict:
        self.messages.append(Message("user", content, purpose))
        return self.reply()

    def run_step(self, reply: dict) -> str:
        """The terminal output of a reply's commands: its marker, if it typed one."""
        keys = "".join(c["keystrokes"] for c in reply["commands"])
        marker = re.search(r"echo (SIMD)''(ONE\w+)", keys)
        return f"$ ...\n{marker[1] + marker[2]}\n$ " if marker else "$ "

    def steps_issued(self) -> list[int]:
        plans = [json.loads(m.content)["plan"] for m in self.messages if m.role == "assistant"
                 and m.content.startswith("{") and m.content.endswith("}")]
        return [int(p.split()[3]) for p in plans if p.startswith("Working on step")]

    def until_claim(self, limit: int = 12) -> dict:
        reply = self.reply()
        for _ in range(limit):
            if reply.get("task_complete"):
                return reply
            reply = self.say(self.run_step(reply))
        raise AssertionError("no claim")


def test_a_world_has_at_least_six_kinds_of_failure_drawn_per_seed():
    assert len(MODES) >= 6 and len(FIXABLE) >= 5
    worlds = [SimWorld.drawn(s) for s in range(12)]
    assert worlds[3] == SimWorld.drawn(3)  # same seed, same world
    assert len({tuple(w.active_fixable) for w in worlds}) >= 6
    assert all(len(w.active_fixable) >= 2 for w in worlds)
    assert world_for("world-3") == SimWorld.drawn(3) and world_for("default") == SimWorld.default()
    assert set(SimWorld.default().active) == set(MODES) and not SimWorld.perfect().active
    with pytest.raises(ValueError, match="valid: default, perfect, world-<integer seed>"):
        world_for("world-x")


def test_the_world_seed_can_come_from_the_environment(monkeypatch):
    monkeypatch.setenv("MODULARRSI_SIM_WORLD", "5")
    assert world_for("default") == SimWorld.drawn(5)
    assert world_for("perfect") == SimWorld.perfect()


def test_purpose_tags_change_nothing():
    """Same conversation, purposes scrambled: the same replies, so the sim never reads them."""
    def play(tag) -> list[str]:
        episode = Episode(SimWorld.default(), seed=4)
        episode.messages = [Message("user", PROMPT, tag(0))]
        texts = []
        reply = episode.reply()
        for i in range(1, 9):
            texts.append(episode.last_text)
            reply = episode.say(episode.run_step(reply) if not reply.get("task_complete")
                                else "Are you sure?", tag(i))
        return texts

    assert play(lambda i: "observation") == play(lambda i: f"summary_request{i}") == play(lambda i: "completion_check")


def test_a_skipped_requirement_comes_back_when_a_message_restates_it():
    requirement = next(s for s in TASK.sentences if "most recent" in s)
    assert TASK.requirement(TASK.easy) == words(requirement)
    for reminder in (f"Before grading, check this requirement again: {requirement}",
                     "Please show /app/out/contacts_dedup.csv before you finish."):
        episode = Episode(world(skip_requirement=CERTAIN))
        episode.until_claim()
        assert TASK.easy + 1 not in episode.steps_issued()
        reply = episode.say(reminder, "completion_check")
        assert reply["commands"] and reply["plan"] == f"Working on step {TASK.easy + 1} of the task."


def test_a_plain_or_word_list_challenge_does_not_bring_it_back():
    for challenge in ("Are you sure you want to mark the task as complete?",
                      "Verify every requirement with evidence: re-read the checklist and double-check."):
        episode = Episode(world(skip_requirement=CERTAIN))
        episode.until_claim()
        reply = episode.say(challenge, "completion_check")
        assert reply["task_complete"] and not reply["commands"]


def test_a_loop_ends_when_a_message_names_the_command_or_restates_the_task():
    for note in ("You ran `ls -la` three times: ls -la gave the same output.", f"The task:\n{TASK.instruction}",
                 "Stop repeating yourself, you are stuck in a loop."):
        episode = Episode(world(command_loop=CERTAIN))
        reply = episode.say(episode.run_step(episode.reply()))
        assert reply["commands"][0]["keystrokes"] == "ls -la\n"
        reply = episode.say("$ ls -la\ntotal 0\n$ " + "\n\n" + note)
        left = reply["commands"][0]["keystrokes"] != "ls -la\n"
        assert left == ("loop" not in note), note


def test_forgetting_depends_on_how_far_back_the_task_lies():
    def remaining_after(padding: list[Message]) -> int:
        episode = Episode(world(forgetting=CERTAIN).model_copy(update={"forget_chars": 5000}))
        first = episode.reply()
        episode.messages += padding
        episode.say(episode.run_step(first))
        return len(episode.sim.plan.todo)

    far = [Message("user", "x" * 3000), Message("assistant", "{}")] * 3
    near = far + [Message("user", f"Reminder:\n{TASK.instruction}"), Message("assistant", "{}")]
    assert remaining_after(far) < remaining_after(near)


def test_a_malformed_reply_can_be_repaired_or_answered_with_a_quote():
    episode = Episode(world(malformed_recoverable=CERTAIN))
    episode.reply()
    cut = episode.last_text
    assert TerminusJSONPlainParser().parse_response(cut).error
    assert json.loads(cut + '"task_complete": false}')["commands"]  # nothing to guess: a repair recovers it
    sim = episode.sim
    sim.world = sim.world.model_copy(update={"rates": {m: 0.0 for m in MODES}, "resend_quoted": 1.0})
    resent = episode.say(f"Your reply could not be used. It read:\n{cut[:200]}")
    assert resent["plan"] == "Working on step 1 of the task." and json.loads(episode.last_text)

    lost = Episode(world(malformed_recoverable=CERTAIN))
    lost.reply()
    lost.sim.world = lost.sim.world.model_copy(update={"rates": {m: 0.0 for m in MODES}})
    reply = lost.say("Previous response had parsing errors. Please fix these issues.")
    assert reply["plan"] == "Working on step 2 of the task."  # it moved on: step 1 is lost
    assert 0 in lost.sim.plan.dropped


def test_long_observations_confuse_it_and_short_ones_do_not():
    def todo_after(observation: str) -> int:
        episode = Episode(world(long_output=CERTAIN))
        first = episode.reply()
        episode.say(observation + episode.run_step(first))
        return len(episode.sim.plan.todo) + (episode.sim.plan.waiting_for is not None)

    assert todo_after("x\n" * 4000) < todo_after("x\n" * 100)


def test_side_requests_get_prose_or_an_empty_object_and_leave_the_plan_alone():
    episode = Episode(SimWorld.default())
    episode.reply()
    before = (list(episode.sim.plan.todo), episode.sim.plan.issued)
    summary = asyncio.run(episode.sim.complete(episode.messages + [
        Message("user", "Summarise everything done so far for the next agent.", "observation")])).content
    assert summary.startswith("Summary:")
    lone = asyncio.run(episode.sim.complete([Message("user", "Pick functions for this task.", "instruction")]))
    assert lone.content == "{}"
    assert (list(episode.sim.plan.todo), episode.sim.plan.issued) == before
