"""Run one Harbor trial and reduce it to a plain outcome; resolve environments by short name."""

from __future__ import annotations

import functools
import importlib
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from harbor.models.environment_type import EnvironmentType
from harbor.models.trial.config import AgentConfig, EnvironmentConfig, TaskConfig, TrialConfig

from modularrsi.engines.build_log import summarise
from modularrsi.util.errors import UserError
from modularrsi.util.hostenv import check_host_env
from modularrsi.util.jsontypes import Options

ENV_HELP = ("auto (per task: local when its Dockerfile fits LocalSandbox, else podman or docker), local, podman, "
            "docker, any Harbor environment type, or module:Class.")
#: Short names that are ours; every Harbor environment type name is accepted too. ``podman`` is Harbor's
#: podman environment with local stand-ins for registry images this machine cannot pull
#: (:mod:`modularrsi.engines.offline`; identical to Harbor's where those images are present).
LOCAL_ENVIRONMENTS = {"local": "modularrsi.sandbox:LocalSandbox", "podman": "modularrsi.engines.offline:OfflinePodman",
                      "docker": "modularrsi.engines.offline:OfflineDocker"}


def check_environment_name(name: str) -> str:
    """``name`` if ``--env`` accepts it (``auto``, ours, Harbor's, ``module:Class``); ValueError otherwise."""
    if name != "auto":
        environment_config(name)
    return name


def environment_config(name: str, kwargs: Options | None = None) -> EnvironmentConfig:
    """``local`` (default), any Harbor environment type (``docker``, ``daytona``, ``modal``, ...),
    or a dotted ``module:Class`` path."""
    if name in ("podman", "docker"):
        from modularrsi.engines.engine import compose_on_path

        compose_on_path()
    if name in LOCAL_ENVIRONMENTS:
        return EnvironmentConfig(import_path=LOCAL_ENVIRONMENTS[name], kwargs=kwargs or {})
    if ":" in name:
        module, _, cls = name.partition(":")
        try:
            getattr(importlib.import_module(module), cls)
        except (ImportError, AttributeError) as exc:
            raise UserError(f"environment '{name}': cannot import ({exc})") from None
        return EnvironmentConfig(import_path=name, kwargs=kwargs or {})
    try:
        return EnvironmentConfig(type=EnvironmentType(name), kwargs=kwargs or {})
    except ValueError:
        valid = ", ".join(dict.fromkeys(["auto", *LOCAL_ENVIRONMENTS, *(e.value for e in EnvironmentType)]))
        raise UserError(f"environment '{name}' is unknown; valid names: {valid}, "
                        "or a module:Class path") from None


def environment_name(config: EnvironmentConfig) -> str:
    """The short name of an environment config (what ``--env`` would have said)."""
    by_path = {path: name for name, path in LOCAL_ENVIRONMENTS.items()}
    if config.import_path:
        return by_path.get(config.import_path, config.import_path)
    return config.type.value if config.type else ""


#: Agent endings that are the model endpoint's failure or the budget cap, not the harness's doing.
INFRA_ENDINGS = ("model_error", "budget")
#: ``model_error`` details that *are* the harness's doing (the context module failed to shrink history).
HARNESS_MODEL_ERRORS = ("ContextOverflow",)
#: ``harness_error`` details that are the generation's own code failing: scored failures, never invalid.
GENERATION_FAULTS = ("FunctionError",)


class EnvironmentUnavailable(RuntimeError):
    """No environment on this machine can run the task (one line: why, and what to install)."""


def auto_choice(task_dir: Path, engine: str | None = "detect") -> str:
    """``--env auto`` for one task: ``local`` when its Dockerfile fits LocalSandbox's subset, this host has
    what it asks for and the process is root (the fast path), else a container engine that answers here."""
    from harbor.environments.base import SandboxBuildFailedError

    from modularrsi.sandbox.dockerfile import DockerfileRefused, parse_dockerfile
    from modularrsi.sandbox.host import check_host_requirements

    env_dir = task_dir / "environment"
    dockerfile = env_dir / "Dockerfile"
    try:
        if os.geteuid() != 0:
            raise DockerfileRefused(dockerfile, ["not root: the embedded sandbox needs root"])
        if (env_dir / "docker-compose.yaml").exists():
            raise DockerfileRefused(env_dir / "docker-compose.yaml", ["a compose file needs a container engine"])
        check_host_requirements(parse_dockerfile(dockerfile), dockerfile)
        return "local"
    except (DockerfileRefused, SandboxBuildFailedError, OSError) as exc:
        reason = str(exc).split(" — ")[0]
    engine = engine_here() if engine == "detect" else engine
    if engine is None:
        raise EnvironmentUnavailable(f"{task_dir.name}: {reason}; no container engine answers here: run "
                                     "scripts/engine-setup.sh as root (podman), or install docker with compose v2")
    return engine


_ANSWERED: set[str] = set()


def _answers(engine: str) -> bool:
    """Whether ``engine`` answers; a yes is kept for the process, a no is asked again (a daemon started
    later is found)."""
    from modularrsi.engines.engine import Engine

    if engine not in _ANSWERED and Engine(engine).answers():
        _ANSWERED.add(engine)
    return engine in _ANSWERED


@functools.cache
def engine_here() -> str | None:
    """The container engine that answers on this machine, if any (asked once per process)."""
    from modularrsi.engines.engine import find_engine

    engine = find_engine()
    return engine.name if engine else None


def resolve_environment(name: str, task_dir: Path,
                        kwargs: Options | None = None) -> tuple[str, EnvironmentConfig]:
    """The environment that runs ``task_dir``: ``name`` itself, or for ``auto`` the per-task choice. A task
    that reads host variables the user has not named is refused first (:mod:`modularrsi.util.hostenv`)."""
    check_host_env(task_dir)
    chosen = auto_choice(task_dir) if name == "auto" else name
    if chosen in ("podman", "docker"):
        if not _answers(chosen):
            start = "start its daemon (dockerd &) or " if chosen == "docker" else ""
            raise EnvironmentUnavailable(f"{task_dir.name}: {chosen} does not answer here ('{chosen} info' "
                                         f"fails): {start}run scripts/engine-setup.sh as root")
        check_base_images(task_dir, chosen)
    return chosen, environment_config(chosen, kwargs)


def check_base_images(task_dir: Path, engine: str) -> None:
    """Refuse, in one line, a task that needs an image ``engine`` lacks (a base, a ``COPY --from`` image,
    a compose service's, a separate verifier's: this machine has no registry to pull it from): say where
    the task names it, and how to build it here or why it cannot be."""
    from modularrsi.engines.engine import Engine
    from modularrsi.engines.images import list_needs

    missing = [need for need in list_needs([task_dir], Engine(engine)) if not need.present]
    if not missing:
        return
    hint = " — run: modularrsi images bootstrap " + " ".join(n.image for n in missing if n.buildable) \
        if any(n.buildable for n in missing) else ""
    if len(missing) == 1:
        need = missing[0]
        raise EnvironmentUnavailable(f"{task_dir.name}: needs image {need.image} ({', '.join(need.uses)}), which is "
                                     f"not in {engine}'s local store: {_why_missing(need)}{hint}")
    what = "; ".join(f"{n.image} ({', '.join(n.uses)}: {_why_missing(n)})" for n in missing)
    raise EnvironmentUnavailable(f"{task_dir.name}: needs {len(missing)} images that are not in {engine}'s local "
                                 f"store: {what}{hint}")


def _why_missing(need: Any) -> str:
    return need.status.removeprefix("missing: ").removeprefix(f"{need.image} ")


@dataclass(frozen=True)
class TrialOutcome:
    """What one trial came to: its reward (None when none was produced), any exception, and ``invalid``:
    why it did not get a fair chance (:func:`invalid_reason`; a trial that could not start), or None."""

    task: str
    trial_dir: Path
    reward: float | None
    exception: str | None
    seconds: float
    environment: str = ""
    invalid: str | None = None
    result: Any = field(default=None, repr=False, compare=False)  # Harbor's TrialResult; None: never started

    @property
    def passed(self) -> bool:
        return self.reward is not None and self.reward >= 1.0


def reward_of(result: Any) -> float | None:
    """The scalar reward of a Harbor TrialResult: ``reward`` if present, else the only value."""
    verifier = result.verifier_result
    if verifier is None or not verifier.rewards:
        return None
    rewards = verifier.rewards
    if "reward" in rewards:
        return float(rewards["reward"])
    return float(next(iter(rewards.values()))) if len(rewards) == 1 else None


def infra_reason(result: Any) -> str | None:
    """Why an attempt failed for reasons outside the harness, or None.

    Infrastructure, in this order: (1) a recorded exception that Harbor's error policy says leaves no
    valid reward (environment start/build failure, sandbox or healthcheck errors, verifier timeout,
    missing or empty reward file, model-API errors); (2) an agent ending ``model_error`` (the model
    endpoint failed; except ``ContextOverflow``, which the context module should have prevented) or
    ``budget`` (the run's cap); (3) no reward at all and no exception. An exception Harbor deems the
    agent's (valid reward: agent timeout, non-zero agent exit, ...) and exceptions Harbor does not know
    (e.g. ``SandboxLimitExceeded`` from the agent's own fork bomb) are the agent's failures, reward or not."""
    exceptions = result.recorded_exceptions()
    for info in exceptions:
        if not info.policy.has_valid_reward:
            return exception_text(info.exception_type, info.exception_message)
    meta = (result.agent_result.metadata or {}) if result.agent_result else {}
    ending, detail = meta.get("ending"), str(meta.get("ending_detail") or "")
    if ending in INFRA_ENDINGS and not detail.startswith(HARNESS_MODEL_ERRORS):
        return f"agent ending {ending}: {detail[:200]}"
    if reward_of(result) is None and not exceptions:
        return "no reward: the verifier produced none"
    return None


def invalid_reason(result: Any) -> str | None:
    """Why an attempt did not get a fair chance, or None: it is then left out of Acc and listed.

    :func:`infra_reason`, and also (4) a harness crash (ending ``harness_error`` whose cause is not the
    generation's own code: the function runtime could not start, ``RuntimeUnavailable``) and (5) an
    exception before the episode began (no agent ending recorded: the model could not be built — an unknown
    model, a missing script, a task the simulator cannot play).

    A function of the generation that fails at run time (``FunctionError``: it raised, broke its contract,
    ran out of time or memory) is that generation's failure, scored as the verifier finds the task: were it
    invalid, a library whose code crashes on hard tasks would drop exactly those attempts from its Acc."""
    infra = infra_reason(result)
    if infra is not None:
        return infra
    meta = (result.agent_result.metadata or {}) if result.agent_result else {}
    detail = str(meta.get("ending_detail") or "")
    if meta.get("ending") == "harness_error" and not detail.startswith(GENERATION_FAULTS):
        return f"harness error: {detail[:200]}"
    info = result.exception_info
    if info is not None and "ending" not in meta:
        return f"the episode never started: {exception_text(info.exception_type, info.exception_message)}"
    return None


def exception_text(kind: str, message: str) -> str:
    """``Type: why`` on one line; a failed image build says its step and cause (:func:`summarise`), not
    Harbor's compose command line."""
    return f"{kind}: {summarise(message, 400)}"


async def run_trial(task: Path | TaskConfig, agent: AgentConfig, trials_dir: Path,
                    environment: EnvironmentConfig | str, trial_name: str = "", timeout_multiplier: float = 1.0,
                    env_kwargs: Options | None = None) -> TrialOutcome:
    """Run ``agent`` on ``task`` (a directory, or Harbor's task config) once through Harbor; never raises
    for a failed trial: one that cannot start is an invalid outcome without a ``result``. ``environment``
    is a config, or a name (``auto`` chooses per task) resolved here with ``env_kwargs``. Every trial
    this project runs starts here."""
    from harbor.trial.trial import Trial

    task = task if isinstance(task, TaskConfig) else TaskConfig(path=task)
    task_dir = Path(task.path)
    env_name = environment if isinstance(environment, str) else environment_name(environment)
    try:
        if isinstance(environment, str):
            env_name, environment = resolve_environment(environment, task_dir, env_kwargs)
        else:
            check_host_env(task_dir)
        config = TrialConfig(task=task, trials_dir=trials_dir, agent=agent, environment=environment,
                             trial_name=trial_name, timeout_multiplier=timeout_multiplier)
        trial = await Trial.create(config)
    except Exception as exc:  # noqa: BLE001 - a task that cannot even start is an outcome, not a crash
        error = exception_text(type(exc).__name__, str(exc))
        return TrialOutcome(task_dir.name, trials_dir / trial_name, None, error, 0.0, env_name, invalid=error)
    result = await trial.run()
    exception = None
    if result.exception_info is not None:
        exception = exception_text(result.exception_info.exception_type, result.exception_info.exception_message)
    seconds = 0.0
    if result.started_at and result.finished_at:
        seconds = (result.finished_at - result.started_at).total_seconds()
    return TrialOutcome(task_dir.name, trial.paths.trial_dir, reward_of(result), exception, seconds, env_name,
                        invalid_reason(result), result)

