"""The frozen kernel: wires the active functions per step; owns the model, terminal, limits and records.

The Agent Loop core drives an episode through :class:`Kernel`'s named steps: the ``LoopAPI`` the
function sees, served here under the same names and arguments. Serving a step may call back into the
worker, so here every step that does is a coroutine; the function sees each as ``LoopAPI`` declares it
(a test holds the two to the same steps). Each step dispatches to the active function(s) of one module,
times the call into the module trace, and keeps the conversation history. Function code never runs in
this process: each episode's functions run in a confined worker (:mod:`modularrsi.harness.runtime`),
which reaches the terminal, the model and these steps only by request
(:mod:`modularrsi.harness.session`); a function that fails at run time ends the episode with
:class:`FunctionError`. Limits, a shell that has exited (checked once per turn before its model call)
and model failures end the episode with a typed exception (:class:`LimitReached`, ``ModelError``) that
the kernel turns into an ``Ending``. A reply cut off at the model's output limit is never parsed for
commands: the model is told, in Terminus-2's words, and asked again within the same turn."""

from __future__ import annotations

import json
import time
from dataclasses import asdict
from pathlib import Path

from modularrsi.harness import wire
from modularrsi.harness.library import Function
from modularrsi.harness.protocols import Ending, LimitReached, LoopState, Message, Reply, TurnRecord, Verdict, contract
from modularrsi.harness.safefiles import open_append
from modularrsi.harness.session import FunctionError, Session, host_handlers
from modularrsi.harness.trajectory import SUBAGENT_PREFIX, TrajectoryRecorder
from modularrsi.harness.wire import Mirror
from modularrsi.models.base import ChatModel, Completion, ContextOverflow, ModelUnavailable, OutputTruncated, Usage

#: The reply a turn goes on with when even the handoff after a context overflow fails (Terminus-2's).
STOCK_REPLY = "Technical difficulties. Please continue with the task."


class KernelModel:
    """The agent's model as functions see it: counts usage per purpose; never exposes the backend.
    ``on_call(messages, purpose, completion)`` sees every answered call (the kernel records sub-agents).
    ``summarizations`` counts the summaries asked for, answered or not: a summary's sub-trajectories
    are numbered by it, as Terminus-2 numbers a handoff after one whose summary call failed; ``asks``
    counts every call asked for, answered or not."""

    def __init__(self, model: ChatModel, usage: Usage, trace, on_call=None):
        self._model, self.usage, self._trace, self._on_call = model, usage, trace, on_call
        self.last = Completion("")  # the last call's answer (its usage goes into the trajectory)
        self.summarizations = self.asks = 0

    async def ask(self, messages: list[Message], purpose: str) -> str:
        self.asks += 1
        if purpose == f"{SUBAGENT_PREFIX}summary":
            self.summarizations += 1
        start = time.perf_counter()
        completion = await self._model.complete(messages)
        self.usage.add(completion, purpose)
        self.last = completion
        self._trace({"event": "model", "purpose": purpose, "ms": round((time.perf_counter() - start) * 1000, 2),
                     "input_tokens": completion.input_tokens, "output_tokens": completion.output_tokens})
        if self._on_call is not None:
            self._on_call(messages, purpose, completion.content)
        return completion.content

    def context_limit(self) -> int:
        return self._model.context_limit()

    def count_tokens(self, messages: list[Message]) -> int:
        return self._model.count_tokens(messages)


class Kernel:
    """Implements ``LoopAPI`` over one episode's active functions, which run in a confined worker
    (:class:`~modularrsi.harness.session.Session`); the kernel keeps the real terminal and model."""

    def __init__(self, active: dict[str, list[Function]], model: ChatModel, terminal, instruction: str,
                 recorder: TrajectoryRecorder, trace_path: Path, max_turns: int | None = None,
                 deadline: float | None = None, model_label: str = "", function_timeout_s: float = 30.0,
                 function_memory_mb: int | None = None, output_limit: int | None = None):
        self.active, self.terminal, self.recorder = active, terminal, recorder
        self.state = LoopState(instruction=instruction, max_turns=max_turns)
        self.mirror = Mirror(self.state, [], owner=True)
        self.usage = Usage()
        self.deadline = deadline
        self.model_label = model_label or getattr(model, "name", "")
        self._trace_file = open_append(trace_path)
        self.model = KernelModel(model, self.usage, self._trace, self._subagent)
        self.output_limit = output_limit
        self._alive_for_turn = 0
        self.function_timeout_s, self.function_memory_mb = function_timeout_s, function_memory_mb
        self.session: Session | None = None
        self.overhead_s = 0.0

    @property
    def history(self) -> list[Message]:
        return self.mirror.history

    @history.setter
    def history(self, messages: list[Message]) -> None:
        self.mirror.history = messages

    # ------------------------------------------------------------ dispatch
    def _trace(self, event: dict) -> None:
        self._trace_file.write(json.dumps({"turn": self.state.turn, **event}) + "\n")
        self._trace_file.flush()

    def _core(self, module: str) -> Function:
        return next(f for f in self.active[module] if f.role == "core")

    def _additive(self, module: str) -> list[Function]:
        return [f for f in self.active[module] if f.role == "additive"]

    async def _start(self) -> Session:
        session = await Session.start(self.mirror, self.function_timeout_s, self.function_memory_mb)
        self.session = session
        session.handlers = host_handlers(self)
        functions = {f"{fn.module}/{fn.name}": {"source": fn.source, "parameters": dict(fn.parameters)}
                     for fns in self.active.values() for fn in fns}
        options = {"deadline": self.deadline, "interventions": bool(self._additive("agent_loop"))}
        await session.call("init", functions, self.state.instruction, options)
        self._trace({"event": "runtime", "fork_ms": round(session.fork_s * 1000, 2)})
        return session

    async def _call(self, fn: Function, name: str, *args):
        start = time.perf_counter()
        try:
            result = await self.session.call("call", f"{fn.module}/{fn.name}", name, list(args))
            return check_result(name, result)
        finally:
            ms = (time.perf_counter() - start) * 1000
            self._trace({"event": "call", "module": fn.module, "function": fn.name, "callable": name,
                         "ms": round(ms, 3)})
            if not contract(name).is_async:
                self.overhead_s += ms / 1000

    # ------------------------------------------------------------ LoopAPI
    async def initial_prompt(self) -> Message:
        screen = await self._shape(await self.terminal.incremental_output())
        text = await self._call(self._core("tool_use"), "initial_prompt", self.state.instruction, screen)
        prompt = Message("user", text, "instruction")
        self.recorder.user(prompt)
        self.recorder.save()
        return prompt

    async def maintain_context(self, prompt: Message) -> Message:
        await self._ensure_alive(self.state.turn + 1)
        asks = self.model.asks
        new = await self._call(self._core("context"), "before_query", list(self.history))
        if not new:
            return prompt
        return self._install_history(new, prompt, "proactive", asks)

    def _install_history(self, new: list[Message], prompt: Message, why: str, asks: int) -> Message:
        """Context Management's new history; the handoff prompt, when it gave one, replaces ``prompt``.
        Replacing an empty history compacts nothing: only the new prompt is recorded (Terminus-2's
        first prompt when even an empty history leaves too little context free). A history changed with no
        model call since ``asks`` (a reply dropped, a window kept, an overflow unwound to nothing) is
        recorded as an edit; one changed after a summary call (answered or not), as a compaction."""
        compacted = bool(self.history)
        self.history = list(new[:-1]) if new[-1].role == "user" else list(new)
        replacement = new[-1] if new[-1].role == "user" else prompt
        handoff = replacement if replacement is not prompt else None
        if compacted and self.model.asks == asks:
            self.recorder.edit(len(self.history), handoff)
            self._trace({"event": "history_edit", "trigger": why, "kept_messages": len(self.history)})
        elif compacted:
            self.recorder.compaction(handoff)
            self._trace({"event": "compaction", "trigger": why, "kept_messages": len(self.history)})
        elif replacement is not prompt:
            self.recorder.user(replacement)
        return replacement

    def _subagent(self, messages: list[Message], purpose: str, reply: str) -> None:
        if purpose.startswith(SUBAGENT_PREFIX):
            last = self.model.last
            self.recorder.subagent(self.model.summarizations, purpose[len(SUBAGENT_PREFIX):], messages,
                                   self.history, reply, last.served_model or self.model_label, last)

    async def _ensure_alive(self, turn: int) -> None:
        """End the episode (``session_ended``) when the shell is gone, once per turn, before the turn's
        model call, as Terminus-2 checks its tmux session. Terminals without ``alive`` count as alive."""
        alive = getattr(self.terminal, "alive", None)
        if self._alive_for_turn == turn or alive is None:
            return
        self._alive_for_turn = turn
        if not await alive():
            raise LimitReached("session_ended", "the terminal session has ended (its shell exited)")

    async def query(self, prompt: Message) -> Reply:
        self.state.turn += 1
        await self._ensure_alive(self.state.turn)
        while True:
            try:
                prompt, text, answered = await self._ask(prompt)
                break
            except OutputTruncated as cut:  # nothing runs; the model is told and asked again (Terminus-2)
                self.history += [prompt, Message("assistant", cut.content, "reply")]
                prompt = Message("user", await self._truncation_feedback(cut.content), "truncation_feedback")
        if answered:
            self.history += [prompt, Message("assistant", text, "reply")]
        reply = await self._call(self._core("tool_use"), "parse", text)
        if reply.error:
            self.state.parse_errors += 1
        return reply

    async def _ask(self, prompt: Message) -> tuple[Message, str, bool]:
        """``(prompt sent, reply, whether the model answered)``; a context overflow is handed to
        Context Management and the handoff sent instead."""
        try:
            return prompt, await self.model.ask(self.history + [prompt], prompt.purpose), True
        except ContextOverflow:
            asks = self.model.asks
            new = await self._call(self._core("context"), "on_overflow", list(self.history) + [prompt])
            prompt = self._install_history(new, prompt, "overflow", asks)
            try:
                return prompt, await self.model.ask(self.history + [prompt], prompt.purpose), True
            except (ContextOverflow, ModelUnavailable):  # Terminus-2 goes on with a stock reply, kept nowhere
                self.model.last = Completion(STOCK_REPLY)
                return prompt, STOCK_REPLY, False

    async def _truncation_feedback(self, truncated: str) -> str:
        """Terminus-2's message for a reply cut off at the output limit, with the parser's warnings."""
        limit = f"{self.output_limit} tokens" if self.output_limit is not None else "the maximum output length"
        text = (f"ERROR!! NONE of the actions you just requested were performed because you exceeded {limit}. "
                f"Your outputs must be less than {limit}. Re-issue this request, breaking it into chunks each "
                f"of which is less than {limit}.")
        warning = (await self._call(self._core("tool_use"), "parse", truncated)).warning
        return text + (f"\n\nParser warnings from your truncated response:\n{warning}" if warning else "")

    async def parse_error_feedback(self, reply: Reply) -> Message:
        text = await self._call(self._core("tool_use"), "parse_error_feedback", reply)
        return Message("user", text, "parse_error_feedback")

    async def execute(self, reply: Reply) -> str:
        return await self._call(self._core("tool_use"), "execute", list(reply.actions))

    async def _shape(self, output: str) -> str:
        for fn in self._additive("observation"):
            output = await self._call(fn, "shape", output)
        return output

    async def observe(self, reply: Reply, output: str) -> Message:
        self.state.pending_completion = False
        return Message("user", await self._shape(output), "observation")

    async def judge_completion(self, reply: Reply, output: str) -> Verdict:
        """Completion sees the output as Tool Use read it (Terminus-2 does not limit it a second time
        for the confirmation message); observation filters shape only observations."""
        self.state.completion_claims += 1
        for fn in self._additive("completion"):
            challenge = await self._call(fn, "check", reply, output)
            if challenge:
                self.state.pending_completion = False
                return Verdict(done=False, message=challenge, purpose="completion_check")
        verdict = await self._call(self._core("completion"), "on_claim", reply, output)
        if not verdict.done:
            self.state.pending_completion = True
        return verdict

    async def interventions(self) -> list[str]:
        notes = [await self._call(fn, "intervene") for fn in self._additive("agent_loop")]
        return [n for n in notes if n]

    def record(self, prompt: Message, reply: Reply, output: str, response: Message) -> None:
        self.state.turns.append(TurnRecord(self.state.turn, prompt.purpose, reply, output, response.content))
        self.recorder.turn(self.state.turn, self.model.last.served_model or self.model_label, prompt, reply,
                           response, self.model.last)
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
            session = await self._start()
            ending = check_result("run", await session.call("run", f"agent_loop/{self._core('agent_loop').name}"))
        except LimitReached as exc:
            ending = Ending(exc.reason, self.state.turn, str(exc))  # type: ignore[arg-type]
        except BudgetExceeded as exc:
            ending = Ending("budget", self.state.turn, str(exc))
        except ModelError as exc:
            ending = Ending("model_error", self.state.turn, f"{type(exc).__name__}: {exc}")
        except FunctionError as exc:
            self._trace({"event": "harness_error", "detail": str(exc)[:2000]})
            raise
        finally:
            self._trace_file.flush()
        return ending

    def close(self, ending: Ending) -> None:
        if self.session is not None:
            self.session.close()
        totals = asdict(self.usage)
        self.recorder.finish(totals, asdict(ending))
        self.recorder.save()
        self._trace({"event": "end", **asdict(ending)})
        self._trace_file.close()


def check_result(name: str, value):
    """``value`` if it is what callable ``name``'s contract says it returns, else :class:`FunctionError`."""
    wanted = contract(name)
    if not wire.conforms(value, wanted.returns) or (wanted.nonempty and not value):
        raise FunctionError(f"{name} returned a {type(value).__name__}, which its contract does not allow")
    return value
