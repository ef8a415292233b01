"""The ``sim`` agent: one simulated attempt, reading only the messages' roles and content.

See :mod:`modularrsi.offline.sim` for what it is and :mod:`.world` for how it fails. Each turn it answers
in the Terminus-2 JSON schema by typing its next reference step into the terminal, followed by a
completion marker it waits for. It remembers what it sent itself (its last reply, whether it claimed
completion, a malformed reply it owes), so it never needs the kernel's tags to know what a message
answers.
"""

from __future__ import annotations

import base64
import json
import random
from dataclasses import dataclass, field
from pathlib import Path

from modularrsi.models.base import Completion, Message
from modularrsi.offline.sim.reading import PROSE_REQUEST, TaskFacts, load_task
from modularrsi.offline.sim.world import Mode, SimWorld, world_for

DIFFICULTY = {"easy": 0.6, "medium": 1.0, "hard": 1.5, "unknown": 1.0}
EXPLORE = "ls -la; find /usr/share/doc -maxdepth 2 | head -n 400\n"
LOOP_COMMAND = "ls -la\n"
MAX_WAITS = 6


@dataclass
class _Plan:
    """Where the attempt stands: steps to do, steps dropped (forgotten, skipped, lost), what it waits for."""

    todo: list[int]
    dropped: list[int] = field(default_factory=list)
    issued: int = 0
    waiting_for: str | None = None
    waits: int = 0
    looping: bool = False
    claimed: bool = False
    last_step: int = -1
    owed: tuple[dict, str, bool] | None = None  # (the reply it meant, what it sent, recoverable)


class SimModel:
    """One simulated agent attempt (stateful across calls, deterministic for a seed and world)."""

    def __init__(self, task: TaskFacts, seed: int, world: SimWorld, name: str = "sim"):
        self.name, self.task, self.world = name, task, world
        self.rng = random.Random(seed)
        u = random.Random(f"task:{task.name}").random()
        self.scale = DIFFICULTY.get(task.difficulty, 1.0) * (world.propensity_base + world.propensity_span * u * u)
        self.plan = _Plan(todo=list(range(len(task.steps))))
        self.incapable: int | None = None
        if task.difficulty == "hard" and random.Random(f"{seed}-cap").random() < world.rate("incapacity"):
            self.incapable = random.Random(seed).randrange(len(task.steps))
        if task.easy is not None and self._chance("skip_requirement"):
            self._drop(task.easy)
        last = len(task.steps) - 1
        if last > 0 and last != task.easy and self._chance("early_claim"):
            self._drop(last)
        self.explore_first = self.rng.random() < world.explore

    @classmethod
    def for_attempt(cls, profile: str = "default", task_dir: Path | str | None = None, seed: int = 0,
                    **_: object) -> SimModel:
        """The model for one attempt: ``profile`` names the world (:func:`.world.world_for`), ``task_dir``
        and ``seed`` come through the privileged channel."""
        world = world_for(profile)
        if task_dir is None:
            raise ValueError("sim needs the task directory through its privileged channel (task_dir)")
        return cls(load_task(Path(task_dir)), seed, world, name=f"sim:{profile}")

    # ----------------------------------------------------------------- interface
    def context_limit(self) -> int:
        return self.world.context_tokens

    def count_tokens(self, messages: list[Message]) -> int:
        return sum(len(m.content) for m in messages) // 4 + 4 * len(messages)

    async def complete(self, messages: list[Message]) -> Completion:
        text = self._respond(messages)
        return Completion(text, self.count_tokens(messages), max(1, len(text) // 4), 0.0, self.name)

    # ------------------------------------------------------------------ policy
    def _chance(self, mode: Mode, factor: float = 1.0) -> bool:
        rate = self.world.rate(mode)
        return rate > 0 and self.rng.random() < min(1.0, rate * self.scale * factor)

    def _drop(self, index: int) -> None:
        if index in self.plan.todo:
            self.plan.todo.remove(index)
            self.plan.dropped.append(index)

    def _respond(self, messages: list[Message]) -> str:
        last = messages[-1]
        if last.role == "user" and PROSE_REQUEST.search(last.content):
            return self._summary()
        if len(messages) == 1 and "keystrokes" not in last.content:
            return "{}"  # a lone request that is not about driving the terminal (e.g. choosing functions)
        owed = self._settle_owed(last)
        if owed is not None:
            return owed
        if self.plan.waiting_for and self.plan.waiting_for in last.content:
            self.plan.waiting_for = None  # the step it typed has finished
        if self._still_running(last):
            # waiting draws no randomness: how long a command takes on a loaded machine changes how many
            # turns are spent waiting, never what the sim does afterwards
            self.plan.waits += 1
            return json.dumps(_reply("The previous command is still running; waiting.",
                                     [("", min(10.0, 0.5 * 2 ** self.plan.waits))]))
        if len(messages) > 1:
            self._perceive(messages)
        return self._send(self._decide(last))

    def _send(self, reply: dict) -> str:
        self.plan.claimed = bool(reply["task_complete"])
        text = json.dumps(reply)
        if self._chance("malformed_unrecoverable"):
            self.plan.owed = (reply, "I will run the next command now.", False)
            return self.plan.owed[1]
        if reply["commands"] and self._chance("malformed_recoverable"):
            cut = text[: text.index('"task_complete"')]  # Harbor's parser refuses it; a repair recovers it
            self.plan.owed = (reply, cut, True)
            return cut
        return text

    def _settle_owed(self, last: Message) -> str | None:
        """After a malformed reply: the harness ran it (its marker shows), or this message answers it."""
        if self.plan.owed is None:
            return None
        reply, sent, recoverable = self.plan.owed
        self.plan.owed = None
        if self.plan.waiting_for and self.plan.waiting_for in last.content:
            return None  # the harness understood the reply and ran it
        quoted = sent[:40] in last.content
        if not recoverable or self.rng.random() < (self.world.resend_quoted if quoted else self.world.resend_unaided):
            self.plan.claimed = bool(reply["task_complete"])
            return json.dumps(reply)
        if self.plan.waiting_for:  # it believes the step ran: the step is lost unless reminded later
            self.plan.waiting_for = None
            self.plan.dropped.append(self.plan.last_step)
        return None

    def _perceive(self, messages: list[Message]) -> None:
        last = messages[-1]
        size_kb = len(last.content.encode()) / 1024
        if size_kb > 2 and self.plan.todo and self._chance("long_output", size_kb - 2):
            self._drop(self.plan.todo[0])
        if self.plan.dropped and last.role == "user":
            reminded = [s for s in self.plan.dropped if self.task.reminded(s, last.content)]
            rate = self.world.recover_reminded if reminded else (self.world.recover_plain if self.plan.claimed else 0)
            if (reminded or self.plan.claimed) and self.rng.random() < rate:
                self._recover(reminded or list(self.plan.dropped))
        if self.plan.todo and self._task_distance(messages) > self.world.forget_chars and self._chance("forgetting"):
            self._drop(self.plan.todo[-1])

    def _recover(self, steps: list[int]) -> None:
        self.plan.todo = sorted(set(self.plan.todo) | set(steps))
        self.plan.dropped = [s for s in self.plan.dropped if s not in steps]

    def _task_distance(self, messages: list[Message]) -> int:
        """Characters between the end of the context and the latest message that restates the task."""
        distance = 0
        for message in reversed(messages):
            if message.role == "user" and self.task.restates_task(message.content):
                return distance
            distance += len(message.content)
        return distance

    def _decide(self, last: Message) -> dict:
        plan = self.plan
        if plan.claimed and not plan.todo and not plan.waiting_for:
            return _reply("I have checked the work; it is complete.", [], done=True)
        left = plan.looping
        if plan.looping and not self._leave_loop(last):
            return _reply("Checking the directory again.", [(LOOP_COMMAND, 0.1)])
        if plan.waiting_for and plan.waiting_for not in last.content and plan.waits < MAX_WAITS:
            plan.waits += 1
            return _reply("The previous command is still running; waiting.", [("", min(10.0, 0.5 * 2 ** plan.waits))])
        plan.waiting_for = None
        if self.explore_first:
            self.explore_first = False
            return _reply("Let me look around first.", [(EXPLORE, 0.3)])
        if plan.issued and not left and self._chance("command_loop"):
            plan.looping = True
            return _reply("Checking the directory.", [(LOOP_COMMAND, 0.1)])
        if plan.todo:
            return self._issue(plan.todo.pop(0))
        return _reply("All steps are done.", [], done=True)

    def _leave_loop(self, last: Message) -> bool:
        named = last.content.count(LOOP_COMMAND.strip()) >= 2 or self.task.restates_task(last.content)
        if named and self.rng.random() < self.world.loop_break:
            self.plan.looping = False
            return True
        if self.rng.random() > self.world.loop_persist:
            self.plan.looping = False
            if self.plan.todo and self.rng.random() < self.world.lost_after_loop:
                self._drop(self.plan.todo[0])
            return True
        return False

    def _still_running(self, last: Message) -> bool:
        plan = self.plan
        return (bool(plan.waiting_for) and plan.waiting_for not in last.content and plan.waits < MAX_WAITS
                and not plan.looping and not plan.claimed)

    def _issue(self, index: int) -> dict:
        plan = self.plan
        plan.issued += 1
        plan.last_step = index
        script = self.task.steps[index]
        if index == self.incapable:
            script = "# (attempting this step the wrong way)\ntrue\n"
        marker = f"SIMDONE{plan.issued}X{self.rng.randrange(10**6)}"
        body = f"{self.task.preamble}\n{script}".strip() + "\n"
        encoded = base64.b64encode(body.encode()).decode()
        path = f"/tmp/.step{plan.issued}.sh"
        keys = f"echo '{encoded}' | base64 -d > {path}; bash {path}; echo {marker[:4]}''{marker[4:]}\n"
        plan.waiting_for, plan.waits = marker, 0
        return _reply(f"Working on step {index + 1} of the task.", [(keys, self.world.step_duration)])

    def _summary(self) -> str:
        remaining = len(self.plan.todo) + len(self.plan.dropped)
        return (f"Summary: {self.plan.issued} step(s) of the task have been carried out; "
                f"{remaining} remain to be checked or done.")


def _reply(plan_text: str, commands: list[tuple[str, float]], done: bool = False) -> dict:
    return {"analysis": "Reviewed the terminal output.", "plan": plan_text,
            "commands": [{"keystrokes": k, "duration": d} for k, d in commands], "task_complete": done}
