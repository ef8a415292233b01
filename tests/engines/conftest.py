"""The container engines the engine tests run on: podman as configured by scripts/engine-setup.sh,
and docker, whose daemon these tests start when none answers (and stop again at the end)."""

from __future__ import annotations

import shutil
import subprocess
import time

import pytest

from modularrsi.engines.engine import Engine


@pytest.fixture(scope="session")
def docker_engine(tmp_path_factory):
    if shutil.which("docker") is None or shutil.which("dockerd") is None:
        pytest.skip("docker is not installed (scripts/engine-setup.sh installs it with the compose v2 plugin)")
    if subprocess.run(["docker", "compose", "version"], capture_output=True).returncode != 0:
        pytest.skip("docker has no compose v2 plugin (scripts/engine-setup.sh installs it)")
    engine, daemon = Engine("docker"), None
    if not engine.answers():
        log = tmp_path_factory.mktemp("dockerd") / "dockerd.log"
        with open(log, "wb") as out:  # the daemon keeps its own copy of the descriptor
            daemon = subprocess.Popen(["dockerd"], stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
        deadline = time.monotonic() + 90
        while not engine.answers():
            if daemon.poll() is not None or time.monotonic() > deadline:
                daemon.kill()
                tail = log.read_text(errors="replace").strip().splitlines()[-1:] or [""]
                pytest.skip(f"dockerd does not start on this host: {tail[0][:200]}")
            time.sleep(1)
    yield engine
    if daemon is not None:
        daemon.terminate()
        try:
            daemon.wait(timeout=60)
        except subprocess.TimeoutExpired:
            daemon.kill()


@pytest.fixture(params=["podman", "docker"])
def engine(request) -> Engine:
    """Each container engine in turn (a test runs once per engine; an engine missing here skips)."""
    if request.param == "docker":
        return request.getfixturevalue("docker_engine")
    podman = Engine("podman")
    if not podman.answers():
        pytest.skip("podman does not answer here (scripts/engine-setup.sh installs and configures it)")
    return podman
