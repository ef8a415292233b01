"""How ``tasks check`` runs its probes: the oracle agent on a temporary copy of a task whose
``solution/solve.sh`` is replaced (the partial solution, a forgery attack). The task directory itself is
never changed; the copy lives under the trials directory and is removed after the trial."""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

from harbor.models.trial.config import AgentConfig, EnvironmentConfig

from modularrsi.tasks.trials import TrialOutcome, run_trial


async def run_solution(task_dir: Path, script: str, trials_dir: Path, environment: EnvironmentConfig | str,
                       trial_name: str) -> TrialOutcome:
    """The oracle agent on a temporary copy of ``task_dir`` whose ``solution/solve.sh`` is ``script``."""
    trials_dir.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=trials_dir, prefix=".solution-") as tmp:
        copy = Path(tmp) / task_dir.name
        shutil.copytree(task_dir, copy, symlinks=True)
        (copy / "solution" / "solve.sh").write_text(script)
        return await run_trial(copy, AgentConfig(name="oracle"), trials_dir, environment, trial_name)
