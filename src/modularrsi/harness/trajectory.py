"""ATIF trajectory recording (Harbor's schema), saved after every step, atomically (never through a
symlink planted in the logs directory: :mod:`modularrsi.harness.safefiles`)."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

from harbor.models.trajectories import (
    Agent,
    FinalMetrics,
    Metrics,
    Observation,
    ObservationResult,
    Step,
    ToolCall,
    Trajectory,
)

from modularrsi.harness.protocols import Message, Reply
from modularrsi.harness.safefiles import write_atomic


def _now() -> str:
    return datetime.now(UTC).isoformat()


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

    def _add(self, **fields) -> Step:
        step = Step(step_id=len(self.steps) + 1, timestamp=_now(), **fields)
        self.steps.append(step)
        return step

    def user(self, message: Message) -> None:
        self._add(source="user", message=message.content, extra={"purpose": message.purpose})

    def system(self, text: str, extra: dict) -> None:
        self._add(source="system", message=text, extra=extra)

    def turn(self, turn: int, model: str, prompt: Message, reply: Reply, response: Message,
             usage: dict) -> None:
        calls = [ToolCall(tool_call_id=f"call_{turn}_{i + 1}", function_name="bash_command",
                          arguments={"keystrokes": a.keystrokes, "duration": a.duration})
                 for i, a in enumerate(reply.actions)] if not reply.error else []
        if reply.task_complete and not reply.error:
            calls.append(ToolCall(tool_call_id=f"call_{turn}_task_complete", function_name="mark_task_complete",
                                  arguments={}))
        parts = [f"Analysis: {reply.analysis}" if reply.analysis else "", f"Plan: {reply.plan}" if reply.plan else ""]
        message = reply.raw if reply.error else "\n".join(p for p in parts if p)
        self._add(source="agent", model_name=model, message=message, tool_calls=calls or None,
                  observation=Observation(results=[ObservationResult(content=response.content)]),
                  metrics=Metrics(prompt_tokens=usage.get("input_tokens"),
                                  completion_tokens=usage.get("output_tokens"),
                                  cost_usd=usage.get("cost_usd") or None),
                  extra={"turn": turn, "prompt_purpose": prompt.purpose, "purpose": response.purpose,
                         "parse_error": reply.error, "raw_reply": reply.raw if not reply.error else None})

    def finish(self, totals: dict, ending: dict) -> None:
        self.final_metrics = FinalMetrics(
            total_prompt_tokens=totals.get("input_tokens"), total_completion_tokens=totals.get("output_tokens"),
            total_cost_usd=totals.get("cost_usd") or None, total_steps=len(self.steps),
            extra={"ending": ending})

    def save(self) -> None:
        if not self.steps:
            return
        trajectory = Trajectory(session_id=self.session_id, agent=self.agent, steps=self.steps,
                                final_metrics=self.final_metrics)
        write_atomic(self.path, json.dumps(trajectory.to_json_dict(), indent=2))
