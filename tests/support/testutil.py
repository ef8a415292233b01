"""Helpers shared by tests: the repository root, a minimal task writer and a bench script loader."""

from __future__ import annotations

import importlib.util
import sys
import textwrap
from pathlib import Path
from types import ModuleType

REPO = Path(__file__).resolve().parents[2]
#: The shipped task directories: evolution pools and the held-out pools they never overlap.
EVOLUTION_POOLS = [REPO / "tasks" / "pool", REPO / "tasks" / "small" / "pool"]
HELDOUT_POOLS = [REPO / "tasks" / "heldout", REPO / "tasks" / "small" / "heldout"]
SHIPPED_TASKS = sorted(t for d in (*EVOLUTION_POOLS, *HELDOUT_POOLS) for t in d.iterdir() if t.is_dir())
#: The pool tasks of the evolve tests' shared sim run (tests/evolve/conftest.py).
SAMPLED_TASKS = ["crm-contacts-dedup-by-email", "rotate-app-logs-retention", "textkit-slugify-accents",
                 "throttle-rejected-requests-count"]


def load_script(relative: str) -> ModuleType:
    """A script of the repository (e.g. ``bench/small_tier/speed.py``) as a module, its own directory on
    ``sys.path`` only while it loads (it may import its neighbours; none shadows a module afterwards)."""
    path = REPO / relative
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    sys.path.insert(0, str(path.parent))
    try:
        spec.loader.exec_module(module)
    finally:
        sys.path.remove(str(path.parent))
    return module


def write_task(root: Path, name: str = "probe", *, dockerfile: str | None = None, toml: str = "",
               test_sh: str | None = None, solve_sh: str | None = None, files: dict | None = None) -> Path:
    """A minimal valid Harbor task; every part can be replaced."""
    task = root / name
    (task / "environment").mkdir(parents=True)
    (task / "tests").mkdir()
    (task / "solution").mkdir()
    (task / "instruction.md").write_text("Create /app/done.txt containing the word done.\n")
    (task / "task.toml").write_text(textwrap.dedent(toml) or textwrap.dedent("""\
        [metadata]
        category = "systems-and-os"
        difficulty = "easy"
        [verifier]
        timeout_sec = 60.0
        [agent]
        timeout_sec = 60.0
        [environment]
        workdir = "/app"
        network_mode = "no-network"
        memory_mb = 512
        pids_max = 128
        """))
    (task / "environment" / "Dockerfile").write_text(dockerfile or "FROM debian:bookworm-slim\nWORKDIR /app\n")
    (task / "tests" / "test.sh").write_text(test_sh or textwrap.dedent("""\
        #!/bin/bash
        if grep -qx done /app/done.txt 2>/dev/null; then echo 1; else echo 0; fi > /logs/verifier/reward.txt
        """))
    default_solve = "#!/bin/bash\n# step: write it\necho done > /app/done.txt\n"
    (task / "solution" / "solve.sh").write_text(solve_sh or default_solve)
    for rel, text in (files or {}).items():
        path = task / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return task

#: An agent_loop core function that acts once and ends the episode: a harmful change for gate tests.
QUIT_EARLY = '''"""An obviously harmful loop: it acts once and then declares the episode complete."""

from modularrsi.harness.protocols import Ending

MODULE = "agent_loop"
ROLE = "core"
DESCRIPTION = "Sends one prompt, executes one reply and ends the episode as completed, whatever happened."
PARAMETERS = {}


async def run(loop):
    prompt = await loop.initial_prompt()
    reply = await loop.query(prompt)
    if not reply.error:
        await loop.execute(reply)
    return Ending("completed", loop.state.turn)
'''


def claim_and_refuse(request: dict) -> str:
    """A fake server's answer for every role: the agent claims completion at once, the reviewer refuses
    (no causal chain), so an evolution completes quickly and promotes nothing."""
    import json

    if request["messages"][0]["content"].startswith("You review one proposed change"):
        return json.dumps({"approve": False, "reason": "no causal chain"})
    return json.dumps({"analysis": "a", "plan": "p", "commands": [], "task_complete": True})
