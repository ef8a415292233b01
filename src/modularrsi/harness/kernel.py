"""The frozen kernel: wires the active functions per step; owns the model, terminal, limits and records.

The Agent Loop core drives an episode through :class:`Kernel`'s named steps (the ``LoopAPI``).
Each step dispatches to the active function(s) of one module, times the call into the module trace,
and keeps the conversation history. Limits and model failures end the episode with a typed
exception (:class:`LimitReached`, ``ModelError``) that the kernel turns into an ``Ending``.
"""

from __future__ import annotations

import json
import time
from dataclasses import asdict
from pathlib import Path
from typing import Any

from modularrsi.harness.library import Function
from modularrsi.harness.protocols import Ctx, Ending, LoopState, Message, Reply, TurnRecord, Verdict
from modularrsi.harness.trajectory import TrajectoryRecorder
from modularrsi.models.base import ChatModel, ContextOverflow, Usage


class LimitReached(Exception):
    """A turn or time limit of the episode was reached."""

    def __init__(self, reason: str, detail: str):
        super().__init__(detail)
        self.reason = reason


class KernelModel:
    """The agent's model as functions see it: counts usage per purpose; never exposes the backend."""

    def __init__(self, model: ChatModel, usage: Usage, trace):
        self._model, self.usage, self._trace = model, usage, trace
        self.last: dict[str, Any] = {}

    async def ask(self, messages: list[Message], purpose: str) -> str:
        start = time.perf_counter()
        completion = await self._model.complete(messages)
        self.usage.add(completion, purpose)
        self.last = {"input_tokens": completion.input_tokens, "output_tokens": completion.output_tokens,
                     "cost_usd": completion.cost_usd}
        self._trace({"event": "model", "purpose": purpose, "ms": round((time.perf_counter() - start) * 1000, 2),
                     "input_tokens": completion.input_tokens, "output_tokens": completion.output_tokens})
        return completion.content

    def context_limit(self) -> int:
        return self._model.context_limit()

    def count_tokens(self, messages: list[Message]) -> int:
        return self._model.count_tokens(messages)


class Kernel:
    """Implements ``LoopAPI`` over one episode's active functions."""

    def __init__(self, active: dict[str, list[Function]], model: ChatModel, terminal, instruction: str,
                 recorder: TrajectoryRecorder, trace_path: Path, max_turns: int | None = None,
                 deadline: float | None = None, model_label: str = ""):
        self.active, self.terminal, self.recorder = active, terminal, recorder
        self.state = LoopState(instruction=instruction, max_turns=max_turns)
        self.history: list[Message] = []
        self.usage = Usage()
        self.deadline = deadline
        self.model_label = model_label or getattr(model, "name", "")
        self._trace_file = trace_path.open("a")
        self.model = KernelModel(model, self.usage, self._trace)
        self._memos: dict[str, dict] = {}
        self.overhead_s = 0.0

    # ------------------------------------------------------------ dispatch
    def _trace(self, event: dict) -> None:
        self._trace_file.write(json.dumps({"turn": self.state.turn, **event}) + "\n")
        self._trace_file.flush()

    def _ctx(self, fn: Function) -> Ctx:
        memo = self._memos.setdefault(f"{fn.module}/{fn.name}", {})
        return Ctx(state=self.state, terminal=self.terminal, model=self.model, params=dict(fn.parameters),
                   memo=memo, history=self.history)

    def _core(self, module: str) -> Function:
        return next(f for f in self.active[module] if f.role == "core")

    def _additive(self, module: str) -> list[Function]:
        return [f for f in self.active[module] if f.role == "additive"]

    def _timed(self, fn: Function, name: str, start: float) -> None:
        ms = (time.perf_counter() - start) * 1000
        self._trace({"event": "call", "module": fn.module, "function": fn.name, "callable": name, "ms": round(ms, 3)})

    def _call(self, fn: Function, name: str, *args):
        start = time.perf_counter()
        try:
            return fn.call(name)(*args, self._ctx(fn))
        finally:
            self._timed(fn, name, start)
            self.overhead_s += time.perf_counter() - start

    async def _acall(self, fn: Function, name: str, *args):
        start = time.perf_counter()
        try:
            return await fn.call(name)(*args, self._ctx(fn))
        finally:
            self._timed(fn, name, start)

    # ------------------------------------------------------------ LoopAPI
    async def initial_prompt(self) -> Message:
        screen = self._shape(await self.terminal.incremental_output())
        text = self._call(self._core("tool_use"), "initial_prompt", self.state.instruction, screen)
        prompt = Message("user", text, "instruction")
        self.recorder.user(prompt)
        self.recorder.save()
        return prompt

    async def maintain_context(self, prompt: Message) -> Message:
        new = await self._acall(self._core("context"), "before_query", list(self.history))
        if not new:
            return prompt
        return self._install_history(new, prompt, "proactive")

    def _install_history(self, new: list[Message], prompt: Message, why: str) -> Message:
        self.history = list(new[:-1]) if new[-1].role == "user" else list(new)
        replacement = new[-1] if new[-1].role == "user" else prompt
        self.recorder.system("Context compacted; the conversation continues from a handoff.",
                             {"context_management": {"type": "compaction", "trigger": why,
                                                     "kept_messages": len(self.history)}})
        self._trace({"event": "compaction", "trigger": why})
        return replacement

    async def query(self, prompt: Message) -> Reply:
        self.state.turn += 1
        try:
            text = await self.model.ask(self.history + [prompt], prompt.purpose)
        except ContextOverflow:
            new = await self._acall(self._core("context"), "on_overflow", list(self.history) + [prompt])
            prompt = self._install_history(new, prompt, "overflow")
            text = await self.model.ask(self.history + [prompt], prompt.purpose)
        self.history += [prompt, Message("assistant", text, "reply")]
        reply = self._call(self._core("tool_use"), "parse", text)
        if reply.error:
            self.state.parse_errors += 1
        return reply

    def parse_error_feedback(self, reply: Reply) -> Message:
        text = self._call(self._core("tool_use"), "parse_error_feedback", reply)
        return Message("user", text, "parse_error_feedback")

    async def execute(self, reply: Reply) -> str:
        return await self._acall(self._core("tool_use"), "execute", list(reply.actions))

    def _shape(self, output: str) -> str:
        for fn in self._additive("observation"):
            output = self._call(fn, "shape", output)
        return output

    def observe(self, reply: Reply, output: str) -> Message:
        self.state.pending_completion = False
        return Message("user", self._shape(output), "observation")

    def judge_completion(self, reply: Reply, output: str) -> Verdict:
        shaped = self._shape(output)
        self.state.completion_claims += 1
        for fn in self._additive("completion"):
            challenge = self._call(fn, "check", reply, shaped)
            if challenge:
                self.state.pending_completion = False
                return Verdict(done=False, message=challenge, purpose="completion_check")
        verdict = self._call(self._core("completion"), "on_claim", reply, shaped)
        if not verdict.done:
            self.state.pending_completion = True
        return verdict

    def interventions(self) -> list[str]:
        notes = [self._call(fn, "intervene") for fn in self._additive("agent_loop")]
        return [n for n in notes if n]

    def record(self, prompt: Message, reply: Reply, output: str, response: Message) -> None:
        self.state.turns.append(TurnRecord(self.state.turn, prompt.purpose, reply, output, response.content))
        self.recorder.turn(self.state.turn, self.model_label, prompt, reply, response, self.model.last)
        self.recorder.save()

    def check_limits(self) -> None:
        if self.state.max_turns is not None and self.state.turn >= self.state.max_turns:
            raise LimitReached("turn_limit", f"turn limit of {self.state.max_turns} reached")
        if self.deadline is not None and time.monotonic() >= self.deadline:
            raise LimitReached("time_limit", "time limit reached")

    # ------------------------------------------------------------ episode
    async def run(self) -> Ending:
        from modularrsi.models.base import BudgetExceeded, ModelError

        try:
            ending = await self._core("agent_loop").call("run")(self)
        except LimitReached as exc:
            ending = Ending(exc.reason, self.state.turn, str(exc))  # type: ignore[arg-type]
        except BudgetExceeded as exc:
            ending = Ending("budget", self.state.turn, str(exc))
        except ModelError as exc:
            ending = Ending("model_error", self.state.turn, f"{type(exc).__name__}: {exc}")
        finally:
            self._trace_file.flush()
        return ending

    def close(self, ending: Ending) -> None:
        totals = asdict(self.usage)
        self.recorder.finish(totals, asdict(ending))
        self.recorder.save()
        self._trace({"event": "end", **asdict(ending)})
        self._trace_file.close()
