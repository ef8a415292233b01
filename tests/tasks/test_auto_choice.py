"""``--env auto`` never replays a base of another distribution on this host: it goes to an engine, or
is refused in one line."""

from __future__ import annotations

import re

import pytest

from modularrsi.sandbox.host import foreign_base, host_release
from modularrsi.tasks.trials import EnvironmentUnavailable, auto_choice

needs_debian_host = pytest.mark.skipif(host_release() != ("debian", "bookworm"),
                                       reason="these cases are written for a Debian bookworm host")


@needs_debian_host
def test_an_ubuntu_base_goes_to_an_engine_or_is_refused_in_one_line(task_factory):
    task = task_factory(name="ubuntu-task", dockerfile="FROM ubuntu:24.04\nRUN echo hi > /tmp/x\n")
    assert auto_choice(task, engine="podman") == "podman"
    with pytest.raises(EnvironmentUnavailable) as refused:
        auto_choice(task, engine=None)
    message = str(refused.value)
    assert "\n" not in message
    assert re.match(r"ubuntu-task: \S+/environment/Dockerfile: base image ubuntu:24\.04 is Ubuntu 24\.04, not this "
                    r"host's Debian bookworm: LocalSandbox would replay it on the host's userland, so it needs a "
                    r"container engine \(podman or docker\); no container engine answers here", message)


@needs_debian_host
@pytest.mark.parametrize("base, foreign", [
    ("debian:bookworm-slim", False), ("debian", False), ("debian:12", False), ("python:3.12-slim-bookworm", False),
    ("gcc:99.1.0-bookworm", False), ("ubuntu:24.04", True), ("ubuntu", True), ("debian:trixie-slim", True),
    ("python:3.13-slim-trixie", True), ("buildpack-deps:jammy", True), ("debian:bullseye", True),
])
def test_a_base_of_another_distribution_or_release_is_foreign(base, foreign):
    assert (foreign_base(base) is not None) == foreign


@needs_debian_host
def test_the_host_release_plays_locally(task_factory):
    assert auto_choice(task_factory(dockerfile="FROM debian:bookworm-slim\nWORKDIR /app\n"), engine=None) == "local"


@needs_debian_host
def test_local_chosen_explicitly_replays_it_and_warns(task_factory, tmp_path, caplog):
    from sandbox_helpers import make_sandbox

    task = task_factory(dockerfile="FROM ubuntu:24.04\nWORKDIR /app\n")
    with caplog.at_level("WARNING"):
        make_sandbox(task, tmp_path / "t")
    assert "base image ubuntu:24.04 is Ubuntu 24.04, not this host's Debian bookworm; LocalSandbox replays it" \
        in caplog.text
