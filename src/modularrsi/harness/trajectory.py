"""ATIF trajectory recording (Harbor's schema, shaped as Terminus-2 shapes it), saved after every
step, atomically (never through a symlink planted in the logs directory:
:mod:`modularrsi.harness.safefiles`).

Besides ``trajectory.json``, every model call a Context Management function makes with a purpose
``summarization_<kind>`` is written as a sub-trajectory ``trajectory.summarization-<n>-<kind>.json``
(the steps it saw, copied from the main trajectory, then its prompt and reply), and the compaction's
system step in the main trajectory links them, as Terminus-2's summary sub-agents are recorded.
"""

from __future__ import annotations

import json
import uuid
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path

from harbor.models.trajectories import (
    Agent,
    FinalMetrics,
    Metrics,
    Observation,
    ObservationResult,
    Step,
    SubagentTrajectoryRef,
    ToolCall,
    Trajectory,
)

from modularrsi.harness.protocols import Message, Reply
from modularrsi.harness.safefiles import write_atomic
from modularrsi.models.base import Completion

SUBAGENT_PREFIX = "summarization_"
#: How Terminus-2 labels its three summary sub-agents in a sub-trajectory reference.
SUBAGENT_LABELS = {"summary": "Step 1 - Summary generation", "questions": "Step 2 - Question asking",
                   "answers": "Step 3 - Answer providing"}
COPIED_NOTE = "Metrics omitted to avoid duplication - already recorded in parent trajectory"
COPIED_REPLY_NOTE = "Copied from summary subagent - metrics already recorded there"
COMPACTION_MESSAGE = "Performed context summarization and handoff to continue task."
#: The system step of a history Context Management changed without asking the model (ModularAgent's own).
EDIT_MESSAGE = "Context Management changed the history without a model call; {kept} messages kept."


def _now() -> str:
    return datetime.now(UTC).isoformat()


def _metrics(usage: Completion, subagent: bool = False) -> Metrics:
    """A step's metrics as Terminus-2 records them: cached tokens only when some were served from the
    server's prefix cache on a main step; always a number on a summary sub-agent's step."""
    cached = usage.cached_tokens
    return Metrics(prompt_tokens=usage.input_tokens, completion_tokens=usage.output_tokens,
                   cached_tokens=cached if subagent or cached > 0 else None, cost_usd=usage.cost_usd or None)


class TrajectoryRecorder:
    """Builds an ATIF trajectory step by step; :meth:`save` writes ``trajectory.json`` atomically."""

    def __init__(self, path: Path, session_id: str, agent_name: str, version: str, model: str,
                 generation: str, active: dict[str, list[str]]):
        self.path = path
        self.session_id = session_id
        self.agent = Agent(name=agent_name, version=version, model_name=model,
                           extra={"generation": generation, "active_functions": active})
        self.steps: list[Step] = []
        self.final_metrics: FinalMetrics | None = None
        self.pending_refs: list[SubagentTrajectoryRef] = []
        self._encoded: list[str] = []  # steps[i] as it appears in the file
        self._slot = f"<steps {uuid.uuid4()}>"  # where they go in the encoded head
        self._turn_cost = 0.0  # the agent steps' running cost total

    def _add(self, **fields) -> Step:
        step = Step(step_id=len(self.steps) + 1, timestamp=_now(), **fields)
        self.steps.append(step)
        return step

    def user(self, message: Message) -> None:
        self._add(source="user", message=message.content, extra={"purpose": message.purpose})

    def compaction(self, handoff: Message | None) -> None:
        """The system step of a context handoff (linking the summary sub-trajectories), then the
        handoff prompt as a user step."""
        results = [ObservationResult(subagent_trajectory_ref=self.pending_refs)] if self.pending_refs else []
        self._add(source="system", message=COMPACTION_MESSAGE, observation=Observation(results=results) if results
                  else None, extra={"context_management": {"type": "compaction", "boundary": "replace"}})
        self.pending_refs = []
        if handoff is not None:
            self.user(handoff)

    def edit(self, kept: int, handoff: Message | None) -> None:
        """The system step of a history changed without a summary (a message dropped, a window kept), then
        the prompt sent instead, if any, as a user step: not a compaction, so analysis does not count one."""
        self._add(source="system", message=EDIT_MESSAGE.format(kept=kept),
                  extra={"context_management": {"type": "edit", "boundary": "replace"}})
        if handoff is not None:
            self.user(handoff)

    def turn(self, turn: int, model: str, prompt: Message, reply: Reply, response: Message,
             usage: Completion) -> None:
        """One agent step; tool-call ids count turns from 0 (``call_<turn-1>_<n>``), as Terminus-2's do, and
        its cost is the difference of the running totals before and after it, as Terminus-2 takes it (the
        same figure to the last digit)."""
        episode = turn - 1
        calls = [ToolCall(tool_call_id=f"call_{episode}_{i + 1}", function_name="bash_command",
                          arguments={"keystrokes": a.keystrokes, "duration": a.duration})
                 for i, a in enumerate(reply.actions)] if not reply.error else []
        if reply.task_complete and not reply.error:
            calls.append(ToolCall(tool_call_id=f"call_{episode}_task_complete", function_name="mark_task_complete",
                                  arguments={}))
        linked = f"call_{episode}_1" if len(reply.actions) == 1 and not reply.error else None
        parts = [f"Analysis: {reply.analysis}" if reply.analysis else "", f"Plan: {reply.plan}" if reply.plan else ""]
        message = reply.raw if reply.error else "\n".join(p for p in parts if p)
        before, self._turn_cost = self._turn_cost, self._turn_cost + usage.cost_usd
        usage = replace(usage, cost_usd=self._turn_cost - before)  # Terminus-2's difference of running totals
        self._add(source="agent", model_name=model, message=message, tool_calls=calls or None,
                  reasoning_content=usage.reasoning_content,
                  observation=Observation(results=[ObservationResult(source_call_id=linked,
                                                                     content=response.content)]),
                  metrics=_metrics(usage),
                  extra={"turn": turn, "prompt_purpose": prompt.purpose, "purpose": response.purpose,
                         "parse_error": reply.error, "raw_reply": reply.raw if not reply.error else None})

    def subagent(self, index: int, kind: str, messages: list[Message], history: list[Message], reply: str,
                 model: str, usage: Completion) -> None:
        """Write the sub-trajectory of one summary call and keep its reference for the next compaction.
        ``kind`` comes from the purpose a (possibly evolved) context function names: only Terminus-2's three
        (:data:`SUBAGENT_LABELS`) make a file, so no name can reach outside the agent's log directory."""
        if kind not in SUBAGENT_LABELS:
            return
        shared = next((i for i, (a, b) in enumerate(zip(messages[:-1], history, strict=False)) if a != b),
                      min(len(messages) - 1, len(history)))
        steps = [self._copied(s) for s in self.steps[:1 + (shared - 1) // 2]] if shared else []
        for m in messages[shared:-1]:
            steps.append(Step(step_id=1, source="user", message=m.content, is_copied_context=True)
                         if m.role == "user" else
                         Step(step_id=1, source="agent", model_name=model, message=m.content,
                              is_copied_context=True, extra={"note": COPIED_REPLY_NOTE}))
        steps += [Step(step_id=1, source="user", message=messages[-1].content),
                  Step(step_id=1, source="agent", model_name=model, message=reply,
                       reasoning_content=usage.reasoning_content, metrics=_metrics(usage, subagent=True))]
        for number, step in enumerate(steps, 1):
            step.step_id, step.timestamp = number, step.timestamp or _now()
        session = f"{self.session_id}-summarization-{index}-{kind}"
        path = self.path.parent / f"trajectory.summarization-{index}-{kind}.json"
        agent = Agent(name=f"{self.agent.name}-summarization-{kind}", version=self.agent.version,
                      model_name=self.agent.model_name,
                      extra={"parent_session_id": self.session_id, "summarization_index": index})
        final = FinalMetrics(total_prompt_tokens=usage.input_tokens, total_completion_tokens=usage.output_tokens,
                             total_cached_tokens=usage.cached_tokens, total_cost_usd=usage.cost_usd or None)
        write_atomic(path, json.dumps(Trajectory(session_id=session, agent=agent, steps=steps,
                                                 final_metrics=final).to_json_dict(), indent=2))
        label = SUBAGENT_LABELS.get(kind, kind)
        self.pending_refs.append(SubagentTrajectoryRef(session_id=session, trajectory_path=path.name,
                                                       extra={"summary": f"Context summarization {index}: {label}"}))

    @staticmethod
    def _copied(step: Step) -> Step:
        copy = step.model_copy(deep=True)
        copy.is_copied_context = True
        if copy.metrics is not None:
            copy.metrics = None
            copy.extra = {**(copy.extra or {}), "note": COPIED_NOTE}
        return copy

    def finish(self, totals: dict, ending: dict) -> None:
        self.final_metrics = FinalMetrics(
            total_prompt_tokens=totals.get("input_tokens"), total_completion_tokens=totals.get("output_tokens"),
            total_cached_tokens=totals.get("cached_tokens") or 0, total_cost_usd=totals.get("cost_usd") or None,
            extra={"ending": ending})
        self._encoded = []  # the last save encodes every step afresh: the file left behind never rests on the cache

    def save(self) -> None:
        if self.steps:
            write_atomic(self.path, self.text())

    def text(self) -> str:
        """``trajectory.json`` as ``json.dumps(trajectory.to_json_dict(), indent=2)`` writes it, with each
        step encoded once: a step is never changed after it is added, so a save costs the steps added
        since the last one, not the whole episode again (it runs twice a turn)."""
        trajectory = Trajectory(session_id=self.session_id, agent=self.agent, steps=self.steps,
                                final_metrics=self.final_metrics)  # validates the whole document
        for step in self.steps[len(self._encoded):]:
            encoded = json.dumps(step.model_dump(exclude_none=True, mode="json"), indent=2)
            self._encoded.append("\n".join("    " + line for line in encoded.splitlines()))
        head = trajectory.model_dump(exclude_none=True, mode="json", exclude={"steps"})
        head = {key: (self._slot if key == "steps" else head[key])
                for key in Trajectory.model_fields if key in head or key == "steps"}
        steps = "[\n" + ",\n".join(self._encoded) + "\n  ]"
        return json.dumps(head, indent=2).replace(json.dumps(self._slot), steps, 1)
