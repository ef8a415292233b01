"""``sim``: a seeded, oracle-guided simulator of an LLM terminal agent — a test double, not a model.

It exists so the machinery (buckets, pairing, voting, gates, rollback, integration, resume, reports)
can run end to end with no model endpoint. Results obtained with it say that the machinery works;
they say nothing about what a real model would gain.

How it acts. Through a privileged channel the harness never reads (``SimModel.for_attempt(task_dir=…)``,
filled by the kernel from the trial, not by any module function) it knows the task's reference steps
(``solution/solve.sh``, ``# step:`` sections). Each turn it answers in the Terminus-2 JSON schema by
typing the next step into the terminal, followed by a completion marker it waits for.

How it fails — as LLM agents do, at the rates of a :class:`SimProfile` scaled by task difficulty:

- malformed replies (invalid JSON);
- premature completion: it may drop the step marked ``[easy-to-miss]`` and claim completion;
- repeated-command loops that persist for many turns;
- confusion by long observations: a long observation may make it believe the next step is done;
- forgetting in long unsummarised contexts: past ``forget_chars`` of history it may drop a step;
- incapacity on some hard tasks: it cannot do one step right at all (an unreachable task).

How it reacts to mechanisms it can observe (purpose tags and message content):

- parse-error feedback: the next reply is well-formed;
- a completion check: a plain "are you sure?" rarely makes it re-check (``recover_plain``); a check
  that asks for evidence or a requirement-by-requirement verification usually does
  (``recover_evidence``), and it then performs the steps it dropped;
- an intervention mentioning repetition or a loop breaks a loop with probability ``loop_break``;
- a summary (purpose ``summary``) restores the plan it may have been forgetting;
- shorter observations lower confusion (the rate grows with observation size).
"""

from __future__ import annotations

import base64
import json
import random
import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from modularrsi.models.base import Completion, Message
from modularrsi.util.steps import STEP_MARKER, parse_steps

DIFFICULTY = {"easy": 0.6, "medium": 1.0, "hard": 1.5, "unknown": 1.0}
EVIDENCE_WORDS = re.compile(r"\b(verify|verified|evidence|requirement|checklist|re-read|double-check)\b", re.I)
LOOP_WORDS = re.compile(r"\b(repeat|repeating|repeated|loop|same command|stuck)\b", re.I)
EXPLORE = "ls -la; find /usr/share/doc -maxdepth 2 | head -n 400\n"


@dataclass(frozen=True)
class SimProfile:
    """Failure and reaction rates (per attempt unless said otherwise); scaled by task difficulty."""

    malformed: float = 0.07            # per reply
    skip_easy_to_miss: float = 0.45    # per attempt: drop the [easy-to-miss] step
    explore: float = 0.6               # per attempt: start with a long exploratory listing
    confuse_per_kb: float = 0.045      # per observation KB beyond 2 KB: believe the next step done
    loop: float = 0.05                 # per turn: fall into a repeated-command loop
    loop_persist: float = 0.88         # per turn: stay in the loop
    loop_break: float = 0.8            # per loop-warning intervention: leave the loop
    forget_chars: int = 40_000         # history size beyond which forgetting may happen
    forget: float = 0.12               # per turn beyond forget_chars: drop one remaining step
    incapable_hard: float = 0.35       # per hard task (fixed per task): one step always done wrong
    recover_plain: float = 0.12        # per plain completion check: re-check and find dropped steps
    recover_evidence: float = 0.8      # per evidence-asking completion check
    lost_after_loop: float = 0.5       # on leaving a loop unaided: drop the next step (lost track)
    propensity_base: float = 0.15      # per task: failure propensity = base + span * u**2, u ~ U(0,1)
    propensity_span: float = 2.6       #   seeded by the task name (some tasks are hard for this "model")
    context_tokens: int = 32_768
    step_duration: float = 0.3


PROFILES = {"default": SimProfile(),
            "perfect": SimProfile(malformed=0, skip_easy_to_miss=0, explore=0, confuse_per_kb=0, loop=0,
                                  forget=0, incapable_hard=0, propensity_base=0, propensity_span=0)}


@dataclass
class _Plan:
    steps: list[str]
    easy: int | None
    todo: list[int] = field(default_factory=list)
    dropped: list[int] = field(default_factory=list)
    issued: int = 0
    waiting_for: str | None = None
    looping: bool = False
    claims: int = 0
    waits: int = 0


def _task_steps(task_dir: Path) -> tuple[list[str], int | None, str, str, str]:
    """The reference steps (preamble apart), the easy-to-miss one, the preamble, difficulty and name."""
    solve = task_dir / "solution" / "solve.sh"
    text = solve.read_text() if solve.is_file() else ""
    steps = parse_steps(text)
    if not steps:
        raise ValueError(f"{task_dir}: sim needs solution/solve.sh with '# step:' sections")
    preamble = []
    for line in text.splitlines():
        if STEP_MARKER.match(line):
            break
        if not line.startswith("#!"):
            preamble.append(line)
    scripts = [s.script for s in steps]
    scripts[0] = scripts[0].replace("\n".join(preamble).strip(), "", 1)
    easy = next((i for i, s in enumerate(steps) if s.easy_to_miss), None)
    metadata = tomllib.loads((task_dir / "task.toml").read_text()).get("metadata", {})
    return scripts, easy, "\n".join(preamble).strip(), str(metadata.get("difficulty", "unknown")), task_dir.name


class SimModel:
    """One simulated agent attempt (stateful across calls, deterministic for a seed)."""

    def __init__(self, steps: list[str], easy_to_miss: int | None, preamble: str, difficulty: str,
                 seed: int, profile: SimProfile, name: str = "sim", task_name: str = ""):
        self.name = name
        self.profile = profile
        self.rng = random.Random(seed)
        u = random.Random(f"task:{task_name}").random()
        self.scale = DIFFICULTY.get(difficulty, 1.0) * (profile.propensity_base + profile.propensity_span * u * u)
        self.preamble = preamble
        self.plan = _Plan(steps, easy_to_miss, todo=list(range(len(steps))))
        self.incapable: int | None = None
        if difficulty == "hard" and random.Random(f"{seed}-cap").random() < profile.incapable_hard:
            self.incapable = random.Random(seed).randrange(len(steps))
        if easy_to_miss is not None and self.rng.random() < min(1.0, profile.skip_easy_to_miss * self.scale):
            self._drop(easy_to_miss)
        self.explore_first = self.rng.random() < profile.explore
        self._unsent: dict | None = None

    @classmethod
    def for_attempt(cls, profile: str = "default", task_dir: Path | str | None = None, seed: int = 0,
                    **_: object) -> SimModel:
        if profile not in PROFILES:
            raise ValueError(f"sim profile '{profile}' is unknown; valid: {', '.join(PROFILES)}")
        if task_dir is None:
            raise ValueError("sim needs the task directory through its privileged channel (task_dir)")
        steps, easy, preamble, difficulty, task_name = _task_steps(Path(task_dir))
        return cls(steps, easy, preamble, difficulty, seed, PROFILES[profile], name=f"sim:{profile}",
                   task_name=task_name)

    # ----------------------------------------------------------------- interface
    def context_limit(self) -> int:
        return self.profile.context_tokens

    def count_tokens(self, messages: list[Message]) -> int:
        return sum(len(m.content) for m in messages) // 4 + 4 * len(messages)

    async def complete(self, messages: list[Message]) -> Completion:
        text = self._respond(messages)
        return Completion(text, self.count_tokens(messages), max(1, len(text) // 4), 0.0, self.name)

    # ------------------------------------------------------------------ policy
    def _drop(self, index: int) -> None:
        if index in self.plan.todo:
            self.plan.todo.remove(index)
            self.plan.dropped.append(index)

    def _respond(self, messages: list[Message]) -> str:
        last = messages[-1]
        if "summary_request" in last.purpose:
            return self._summary()
        if last.purpose == "composer":
            return "{}"
        if "parse_error_feedback" in last.purpose and self._unsent is not None:
            reply, self._unsent = self._unsent, None  # say properly what did not parse
            return json.dumps(reply)
        if last.purpose == "observation" and self._still_running(last):
            # waiting draws no randomness: how long a command takes on a loaded machine changes how many
            # turns are spent waiting, never what the sim does afterwards
            self.plan.waits += 1
            return json.dumps(self._reply("The previous command is still running; waiting.",
                                          [("", min(10.0, 0.5 * 2 ** self.plan.waits))]))
        self._perceive(messages)
        reply = self._decide(last)
        if self.rng.random() < self.profile.malformed * self.scale:
            self._unsent = reply
            return json.dumps(reply)[: self.rng.randrange(20, 60)]
        return json.dumps(reply)

    def _perceive(self, messages: list[Message]) -> None:
        last = messages[-1]
        size_kb = len(last.content.encode()) / 1024
        confusion = self.profile.confuse_per_kb * self.scale * (size_kb - 2)
        if size_kb > 2 and self.plan.todo and self.rng.random() < confusion:
            self._drop(self.plan.todo[0])
        if any(m.purpose == "summary" for m in messages):
            return
        history_chars = sum(len(m.content) for m in messages)
        forget = self.profile.forget * self.scale
        if history_chars > self.profile.forget_chars and self.plan.todo and self.rng.random() < forget:
            self._drop(self.plan.todo[-1])

    def _decide(self, last: Message) -> dict:
        plan = self.plan
        if "completion_check" in last.purpose:
            if plan.dropped and self.rng.random() < self._recover_rate(last.content):
                plan.todo = sorted(set(plan.todo) | set(plan.dropped))
                plan.dropped = []
                plan.claims = 0
            elif not plan.todo and not plan.waiting_for:
                return self._reply("I have checked the work; it is complete.", [], done=True)
        if plan.looping:
            breaks = "intervention" in last.purpose and LOOP_WORDS.search(last.content)
            escaped = breaks and self.rng.random() < self.profile.loop_break
            if escaped or self.rng.random() > self.profile.loop_persist:
                plan.looping = False
                if not escaped and plan.todo and self.rng.random() < self.profile.lost_after_loop:
                    self._drop(plan.todo[0])
            else:
                return self._reply("Checking the directory again.", [("ls -la\n", 0.1)])
        if plan.waiting_for and plan.waiting_for not in last.content and plan.waits < 6:
            plan.waits += 1
            wait = min(10.0, 0.5 * 2 ** plan.waits)
            return self._reply("The previous command is still running; waiting.", [("", wait)])
        plan.waiting_for = None
        if self.explore_first:
            self.explore_first = False
            return self._reply("Let me look around first.", [(EXPLORE, 0.3)])
        if plan.issued and self.rng.random() < self.profile.loop * self.scale:
            plan.looping = True
            return self._reply("Checking the directory.", [("ls -la\n", 0.1)])
        if plan.todo:
            return self._issue(plan.todo.pop(0))
        return self._reply("All steps are done.", [], done=True)

    def _still_running(self, last: Message) -> bool:
        plan = self.plan
        return bool(plan.waiting_for) and plan.waiting_for not in last.content and plan.waits < 6 \
            and not plan.looping

    def _recover_rate(self, content: str) -> float:
        return self.profile.recover_evidence if EVIDENCE_WORDS.search(content) else self.profile.recover_plain

    def _issue(self, index: int) -> dict:
        self.plan.issued += 1
        script = self.plan.steps[index]
        if index == self.incapable:
            script = "# (attempting this step the wrong way)\ntrue\n"
        marker = f"SIMDONE{self.plan.issued}X{self.rng.randrange(10**6)}"
        body = f"{self.preamble}\n{script}".strip() + "\n"
        encoded = base64.b64encode(body.encode()).decode()
        path = f"/tmp/.step{self.plan.issued}.sh"
        keys = (f"echo '{encoded}' | base64 -d > {path}; bash {path}; "
                f"echo {marker[:4]}''{marker[4:]}\n")
        self.plan.waiting_for = marker
        self.plan.waits = 0
        return self._reply(f"Working on step {index + 1} of the task.", [(keys, self.profile.step_duration)])

    def _reply(self, plan_text: str, commands: list[tuple[str, float]], done: bool = False) -> dict:
        return {"analysis": "Reviewed the terminal output.", "plan": plan_text,
                "commands": [{"keystrokes": k, "duration": d} for k, d in commands], "task_complete": done}

    def _summary(self) -> str:
        done = self.plan.issued
        return (f"Summary: {done} step(s) of the task have been carried out; "
                f"{len(self.plan.todo) + len(self.plan.dropped)} remain to be checked or done.")
