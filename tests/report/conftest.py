"""Report fixtures: a small synthetic evolution run (fast, every section filled) and one real
``modularrsi evolve`` run on four pool tasks (a few minutes, made once per session)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from testutil import REPO, SAMPLED_TASKS

from modularrsi.offline.synthetic import make_run


@pytest.fixture(scope="session")
def synthetic_run(tmp_path_factory) -> Path:
    # seed 9: the merge stage folds a pair, so the lineage test sees a merge
    return make_run(tmp_path_factory.mktemp("report") / "synthetic", tasks=8, epochs=2,
                    lanes=("agent_loop", "completion", "observation"), k=3, directions=2, seed=9)


EVOLVE_CONFIG = """\
tasks: [{tasks}]
modules: [completion, agent_loop]
epochs: 2
k: 2
concurrency: 4
seed: 7
editor: {{bad_rate: 0.5, retries: 2}}
aggregate: {{min_support: 1}}
# a looser execution gate than the default so that this tiny pool can promote a change
gates: {{execution: {{alpha: 0.2}}}}
eval_tasks: [{eval_tasks}]
eval_k: 2
"""


@pytest.fixture(scope="session")
def evolution_run(tmp_path_factory) -> Path:
    """A real evolution run (sim model), made by the ``modularrsi evolve`` command."""
    root = tmp_path_factory.mktemp("evolve")
    heldout = sorted(p for p in (REPO / "tasks" / "heldout").iterdir() if p.is_dir())[:2]
    config = root / "evolve.yaml"
    config.write_text(EVOLVE_CONFIG.format(tasks=", ".join(str(REPO / "tasks" / "pool" / t) for t in SAMPLED_TASKS),
                                           eval_tasks=", ".join(map(str, heldout))))
    run_dir = root / "run"
    command = [str(Path(sys.executable).parent / "modularrsi"), "evolve", "--config", str(config),
               "--out", str(run_dir)]
    done = subprocess.run(command, cwd=REPO, capture_output=True, text=True, timeout=1500,
                          env={**os.environ, "COLUMNS": "200"})
    assert done.returncode == 0, f"modularrsi evolve failed:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    return run_dir
