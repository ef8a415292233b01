"""Run one Harbor trial and reduce it to a plain outcome; resolve environments by short name."""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from harbor.models.environment_type import EnvironmentType
from harbor.models.trial.config import AgentConfig, EnvironmentConfig, TaskConfig, TrialConfig
from harbor.trial.trial import Trial

#: Short names that are ours; every Harbor environment type name is accepted too. ``podman`` is Harbor's
#: podman environment with local stand-ins for registry images this machine cannot pull
#: (:mod:`modularrsi.engines.offline`; identical to Harbor's where those images are present).
LOCAL_ENVIRONMENTS = {"local": "modularrsi.sandbox:LocalSandbox", "podman": "modularrsi.engines.offline:OfflinePodman"}


def environment_config(name: str, kwargs: dict[str, Any] | None = None) -> EnvironmentConfig:
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
            raise ValueError(f"environment '{name}': cannot import ({exc})") from None
        return EnvironmentConfig(import_path=name, kwargs=kwargs or {})
    try:
        return EnvironmentConfig(type=EnvironmentType(name), kwargs=kwargs or {})
    except ValueError:
        valid = ", ".join([*LOCAL_ENVIRONMENTS, *(e.value for e in EnvironmentType)])
        raise ValueError(f"environment '{name}' is unknown; valid names: {valid}, "
                         "or a module:Class path") from None


@dataclass(frozen=True)
class TrialOutcome:
    """What one trial came to: its reward (None when none was produced) and any exception."""

    task: str
    trial_dir: Path
    reward: float | None
    exception: str | None
    seconds: float

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


async def run_trial(task_dir: Path, agent: AgentConfig, trials_dir: Path, environment: EnvironmentConfig,
                    trial_name: str = "", timeout_multiplier: float = 1.0) -> TrialOutcome:
    """Run ``agent`` on ``task_dir`` once through Harbor; never raises for a failed trial."""
    config = TrialConfig(task=TaskConfig(path=task_dir), trials_dir=trials_dir, agent=agent,
                         environment=environment, trial_name=trial_name,
                         timeout_multiplier=timeout_multiplier)
    try:
        trial = await Trial.create(config)
    except Exception as exc:  # noqa: BLE001 - a task that cannot even start is an outcome, not a crash
        first = (str(exc).strip().splitlines() or [""])[0]
        return TrialOutcome(task_dir.name, trials_dir / trial_name, None, f"{type(exc).__name__}: {first}", 0.0)
    result = await trial.run()
    exception = None
    if result.exception_info is not None:
        info = result.exception_info
        first_line = (info.exception_message.strip().splitlines() or [""])[0]
        exception = f"{info.exception_type}: {first_line}"
    seconds = 0.0
    if result.started_at and result.finished_at:
        seconds = (result.finished_at - result.started_at).total_seconds()
    return TrialOutcome(task_dir.name, trial.paths.trial_dir, reward_of(result), exception, seconds)
