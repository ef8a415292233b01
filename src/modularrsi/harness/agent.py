"""ModularAgent: the evolvable harness as a Harbor agent (``-a modularrsi.harness:ModularAgent``).

    harbor run -p TASK -a modularrsi.harness:ModularAgent -m sim --ak generation=PATH \
        --env modularrsi.sandbox:LocalSandbox

The generation is loaded and validated before anything touches the environment; a malformed
generation refuses the trial naming the file. The kernel owns the terminal (tmux), the model, the
limits, the ATIF trajectory (``agent/trajectory.json``, saved after every step) and the module
trace (``agent/module_trace.jsonl``). The functions themselves run confined, in a separate process
(:mod:`modularrsi.harness.runtime`); one that fails at run time ends the episode with the ending
``harness_error`` and the trial with :class:`~modularrsi.harness.session.FunctionError`.
"""

from __future__ import annotations

import hashlib
import json
import time
from pathlib import Path
from typing import Any, Literal

from harbor.agents.base import BaseAgent
from harbor.agents.options import AgentOptions
from harbor.environments.base import BaseEnvironment
from harbor.models.agent.context import AgentContext
from harbor.models.trial.paths import EnvironmentPaths
from pydantic import Field

from modularrsi import __version__
from modularrsi.harness import composer
from modularrsi.harness.kernel import Kernel
from modularrsi.harness.library import BASELINE, load_generation
from modularrsi.harness.model_limits import FALLBACK_CONTEXT_LIMIT, RETRY_BACKOFF_S, model_limits
from modularrsi.harness.protocols import Ending
from modularrsi.harness.runtime import RuntimeUnavailable
from modularrsi.harness.safefiles import write_atomic
from modularrsi.harness.session import FunctionError
from modularrsi.harness.terminal import TmuxTerminal
from modularrsi.harness.trajectory import TrajectoryRecorder
from modularrsi.models.settings import CALL_FIELDS, ModelCall, ModelSettings, is_litellm, is_sim

#: The sim model's default settle cap (seconds): a seeded sim run reads the same screens on a quiet and a
#: loaded machine unless one command runs past this.
SIM_SETTLE_S = 120.0


class ModularAgentOptions(AgentOptions, ModelCall):
    """``--ak key=value`` options of ModularAgent: the model's call settings (:class:`ModelCall`: api_base,
    api_key_env, temperature, timeout_s, context_limit, max_output_tokens, max_retries, extra) and the
    harness's own."""

    generation: str | None = Field(default=None, description="Generation directory (default: gen_0).")
    model: str | None = Field(default=None, description="Model name when -m is not given.")
    max_turns: int | None = Field(default=None, description="Turn limit (None: none, like Terminus-2).")
    composer: Literal["static", "task-aware"] = Field(default="static", description="How functions are chosen.")
    composer_model: ModelSettings | None = Field(default=None, description="Model of the task-aware composer "
                                                 "(a name, or a name with its call settings); None: the agent's.")
    seed: int | None = Field(default=None, description="Seed for simulated models (default: from the trial).")
    attempt: int | None = Field(default=None, description="Index of this attempt of its task (with the task and "
                                "the seed, part of every response-cache key).")
    record_terminal_session: bool = Field(default=False, description="Record the terminal with asciinema, "
                                          "started as Terminus-2 starts it (installs asciinema in the "
                                          "environment when missing; off by default: "
                                          "docs/terminus-2-parity.md).")
    settle_s: float | None = Field(default=None, ge=0, description="After each keystroke batch's wait, keep "
                                   "waiting (at most this many seconds) until the shell's prompt is back or "
                                   "the foreground program waits for input, and the screen is still, so the "
                                   "observation does not depend on the machine's load; 0: off (Terminus-2 "
                                   "reads the screen when the wait ends); None: SIM_SETTLE_S for the sim "
                                   "model, off for every other model.")
    pane_width: int = Field(default=160, description="tmux pane width.")
    pane_height: int = Field(default=40, description="tmux pane height.")
    cache_path: str | None = Field(default=None, description="SQLite response cache (resumed runs do not pay twice).")
    replay_cache_path: str | None = Field(default=None, description="The paired side's response cache, read "
                                          "only (with cache_path): the attempt's requests identical to the "
                                          "paired side's are answered from it until the first that differs.")
    budget_path: str | None = Field(default=None, description="Budget ledger file shared by a run's attempts.")
    max_tokens: int | None = Field(default=None, description="Token cap of the run (with budget_path).")
    max_cost_usd: float | None = Field(default=None, description="Cost cap of the run in USD (with budget_path).")
    function_timeout_s: float = Field(default=30.0, gt=0, description="Per-call time limit of a function's own "
                                      "computing (waits for the terminal or the model do not count); past it "
                                      "the episode ends with a harness error.")
    function_memory_mb: int = Field(default=1024, gt=0, description="Address-space limit of the confined "
                                    "process that runs the episode's functions.")
    privileged: dict[str, Any] | None = Field(default=None, description="For simulators only; never read by "
                                              "the harness (e.g. a task directory for sim).")


class ModularAgent(BaseAgent):
    """A Terminus-2-style harness assembled from a generation's active functions."""

    options_model = ModularAgentOptions

    def __init__(self, logs_dir: Path, model_name: str | None = None, *args: Any, **kwargs: Any):
        super().__init__(logs_dir, model_name, *args, **kwargs)
        opts: ModularAgentOptions = self.options  # type: ignore[assignment]
        self.generation = load_generation(Path(opts.generation) if opts.generation else BASELINE)
        self._terminal: TmuxTerminal | None = None
        self._task_dir: Path | None = None
        self._session = "session"

    @staticmethod
    def name() -> str:
        return "modular-agent"

    def version(self) -> str | None:
        return f"{__version__}+{self.generation.id}"

    async def setup(self, environment: BaseEnvironment) -> None:
        opts: ModularAgentOptions = self.options  # type: ignore[assignment]
        self._task_dir = environment.environment_dir.parent
        self._session = environment.session_id or "session"
        recording = environment.trial_paths.agent_dir / "recording.cast" if opts.record_terminal_session else None
        self._terminal = TmuxTerminal(environment, "modular-agent", EnvironmentPaths.agent_dir / "modular.pane",
                                      opts.pane_width, opts.pane_height, self._extra_env, recording,
                                      settle_s=self._settle_s())
        await self._terminal.start()

    def _settle_s(self) -> float:
        opts: ModularAgentOptions = self.options  # type: ignore[assignment]
        if opts.settle_s is not None:
            return opts.settle_s
        name = self.model_name or opts.model or ""
        return SIM_SETTLE_S if is_sim(name) else 0.0

    def _model(self):
        from modularrsi.models.registry import make_model

        opts: ModularAgentOptions = self.options  # type: ignore[assignment]
        settings = ModelSettings(model=self.model_name or opts.model or "", **opts.model_dump(include=CALL_FIELDS))
        seed = opts.seed if opts.seed is not None else int(hashlib.sha256(self._session.encode()).hexdigest()[:8], 16)
        privileged = {"task_dir": self._task_dir, "seed": seed, **(opts.privileged or {})}
        scope = {"task": self._task_dir.name if self._task_dir else "", "attempt": opts.attempt, "seed": seed}
        # retries and the context window of an unknown model as Terminus-2 has them
        return make_model(settings, privileged=privileged, cache_scope=scope, cache_path=opts.cache_path,
                          replay_path=opts.replay_cache_path, budget_path=opts.budget_path,
                          max_tokens=opts.max_tokens, max_cost_usd=opts.max_cost_usd, backoff_s=RETRY_BACKOFF_S,
                          context_fallback=FALLBACK_CONTEXT_LIMIT)

    async def _choose(self, instruction: str, model) -> tuple[dict[str, list[str]], str]:
        opts: ModularAgentOptions = self.options  # type: ignore[assignment]
        if opts.composer == "static":
            return composer.static(self.generation), "static"
        from modularrsi.models.registry import make_model

        chooser = make_model(opts.composer_model) if opts.composer_model else model
        return await composer.task_aware(self.generation, instruction, chooser)

    async def run(self, instruction: str, environment: BaseEnvironment, context: AgentContext) -> None:
        assert self._terminal is not None, "setup() must run first"
        opts: ModularAgentOptions = self.options  # type: ignore[assignment]
        model = self._model()
        active, note = await self._choose(instruction, model)
        recorder = TrajectoryRecorder(self.logs_dir / "trajectory.json", self._session, self.name(),
                                      self.version() or "", getattr(model, "name", ""), self.generation.id, active)
        kernel = Kernel(composer.resolve(self.generation, active), model, self._terminal, instruction, recorder,
                        self.logs_dir / "module_trace.jsonl", max_turns=opts.max_turns,
                        model_label=getattr(model, "name", ""), function_timeout_s=opts.function_timeout_s,
                        function_memory_mb=opts.function_memory_mb,
                        output_limit=model_limits(model.name)[1] if is_litellm(model.name) else None)
        started = time.perf_counter()
        ending = None
        try:
            ending = await kernel.run()
        except (FunctionError, RuntimeUnavailable) as exc:
            ending = Ending("harness_error", kernel.state.turn, f"{type(exc).__name__}: {str(exc)[:2000]}")
            raise
        finally:
            ending = ending or Ending("time_limit", kernel.state.turn, "cancelled (agent timeout)")
            kernel.close(ending)
            usage = kernel.usage
            context.n_input_tokens, context.n_output_tokens = usage.input_tokens, usage.output_tokens
            context.cost_usd = usage.cost_usd or None
            context.n_cache_tokens = usage.cached_tokens  # as Terminus-2 fills them (it collects no rollouts)
            context.rollout_details = []
            context.metadata = {
                "ending": ending.reason, "ending_detail": ending.detail, "turns": kernel.state.turn,
                "generation": self.generation.id, "active": active, "composer": note,
                "parse_errors": kernel.state.parse_errors, "completion_claims": kernel.state.completion_claims,
                "compactions": kernel.state.compactions, "model_calls": usage.calls,
                "wall_s": round(time.perf_counter() - started, 3), "terminal_wait_s": round(self._terminal.wait_s, 3),
                "model_latency_s": round(usage.latency_s, 3), "harness_overhead_s": round(kernel.overhead_s, 4),
            }
            write_atomic(self.logs_dir / "episode.json", json.dumps(context.metadata, indent=2))
