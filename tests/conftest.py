"""Shared fixtures: real task directories and real LocalSandbox instances (no mocks)."""

from __future__ import annotations

import os
import sys
import textwrap
from pathlib import Path

import pytest

from modularrsi.offline import apply_offline_defaults

apply_offline_defaults()
REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(Path(__file__).parent / "support"))


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
    (task / "solution" / "solve.sh").write_text(solve_sh or "#!/bin/bash\n# step: write it\necho done > /app/done.txt\n")
    for rel, text in (files or {}).items():
        path = task / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return task


@pytest.fixture
def task_factory(tmp_path):
    counter = iter(range(1000))

    def make(**kwargs) -> Path:
        kwargs.setdefault("name", f"task{next(counter)}")
        return write_task(tmp_path / "tasks", **kwargs)

    return make


def pytest_report_header(config):
    return f"cgroups writable: {os.access('/sys/fs/cgroup/memory', os.W_OK)}"
