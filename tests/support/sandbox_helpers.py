"""Build LocalSandbox instances the way a Harbor trial does."""

from __future__ import annotations

import os
import tomllib
from pathlib import Path

from harbor.models.task.config import EnvironmentConfig, NetworkMode, NetworkPolicy
from harbor.models.trial.paths import TrialPaths

from modularrsi.sandbox import LocalSandbox


def make_sandbox(task: Path, trial_dir: Path, network: str | None = None, **kwargs) -> LocalSandbox:
    raw = tomllib.loads((task / "task.toml").read_text()).get("environment", {})
    config = EnvironmentConfig.model_validate(raw)
    paths = TrialPaths(trial_dir=trial_dir)
    paths.mkdir()
    mode = NetworkMode(network or raw.get("network_mode", "no-network"))
    return LocalSandbox(environment_dir=task / "environment", environment_name=task.name,
                        session_id=f"{task.name}__{trial_dir.name}", trial_paths=paths,
                        task_env_config=config, network_policy=NetworkPolicy(network_mode=mode), **kwargs)


async def started(task: Path, trial_dir: Path, **kwargs) -> LocalSandbox:
    box = make_sandbox(task, trial_dir, **kwargs)
    await box.start(force_build=False)
    return box


def processes_with(marker: str) -> list[int]:
    """Pids whose command line contains ``marker``."""
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            if marker.encode() in Path(f"/proc/{pid}/cmdline").read_bytes():
                found.append(int(pid))
        except OSError:
            continue
    return found
