"""Shared fixtures: real task directories and real LocalSandbox instances (no mocks)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from modularrsi.util.outbound import apply_offline_defaults

apply_offline_defaults()
sys.path.insert(0, str(Path(__file__).parent / "support"))

from containment import devices  # noqa: E402
from testutil import write_task  # noqa: E402


@pytest.fixture(autouse=True)
def host_devices_unchanged():
    """Every test leaves the host's device nodes (/dev/null, /dev/tty, ...) exactly as it found them."""
    before = devices()
    yield
    after = devices()
    assert after == before, f"this test changed a host device node: {after} (before: {before})"


@pytest.fixture
def task_factory(tmp_path):
    counter = iter(range(1000))

    def make(**kwargs) -> Path:
        kwargs.setdefault("name", f"task{next(counter)}")
        return write_task(tmp_path / "tasks", **kwargs)

    return make


def pytest_report_header(config):
    return f"cgroups writable: {os.access('/sys/fs/cgroup/memory', os.W_OK)}"
