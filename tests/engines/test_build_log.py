"""A failed build's reason: the step that failed and its cause, on one short line, from the text Harbor's
compose environments raise (podman, docker's classic builder, BuildKit)."""

from __future__ import annotations

import pytest
from build_messages import (
    BUILDKIT_APT,
    COMMAND,
    DOCKER_CLASSIC_PIP,
    PODMAN_MISSING_BASE,
    PODMAN_NO_HOST,
    harbor_message,
)

from modularrsi.engines.build_log import clip, summarise


@pytest.mark.parametrize("stdout, expected", [
    (PODMAN_NO_HOST, "image build failed at STEP 3/5: RUN curl -LsSf https://astral.sh/uv/0.8.15/install.sh | sh: "
                     "curl: (6) Could not resolve host: astral.sh (exit status 6)"),
    (DOCKER_CLASSIC_PIP, "image build failed at STEP 3/4: RUN pip install --no-cache-dir numpy==9.9.9: ERROR: Could "
                         "not find a version that satisfies the requirement numpy==9.9.9 (from versions: 1.26.4, "
                         "2.0.0) | ERROR: No matching distribution found for numpy==9.9.9 "
                         "(returned a non-zero code: 1)"),
    (BUILDKIT_APT, "image build failed at STEP 2/3: RUN apt-get update && apt-get install -y foo=1.2: "
                   "E: Version '1.2' for 'foo' was not found (exit code: 100)"),
])
def test_the_failing_step_and_its_cause_are_kept(stdout, expected):
    assert summarise(harbor_message(stdout, code=1)) == expected


def test_a_base_that_cannot_be_pulled_says_why_and_stays_short():
    reason = summarise(harbor_message(PODMAN_MISSING_BASE))
    assert reason.startswith("image build failed at STEP 1/2: FROM python:3.13-slim: creating build container: ")
    assert reason.endswith("no such host (exit 125)") and len(reason) <= 500 and "\n" not in reason


def test_a_heredoc_the_builder_does_not_know_is_named():
    stdout = ('STEP 1/7: FROM scratch\nSTEP 2/7: COPY <<EOF /hello.txt\nError: building at STEP "COPY <<EOF '
              '/hello.txt": checking on sources under "/tmp/hd": copier: stat: "/<<EOF": no such file or directory\n')
    assert summarise(harbor_message(stdout)) == ('image build failed at STEP 2/7: COPY <<EOF /hello.txt: checking on '
                                                 'sources under "/tmp/hd": copier: stat: "/<<EOF": no such file or '
                                                 "directory (exit 125); the Dockerfile uses heredocs (<<EOF), which "
                                                 "this engine's builder may not read")


def test_other_compose_commands_and_other_messages():
    up = harbor_message("Error: unable to start container 4f2e: no space left on device\n",
                        command=COMMAND.replace(" build", " up --detach --wait"))
    assert summarise(up) == ("compose up --detach --wait failed: unable to start container 4f2e: no space left "
                             "on device (exit 125)")
    assert summarise("first line\nsecond line") == "first line"
    assert clip("a" * 50 + "the cause", 21) == "aaaaaaaaa … the cause"


async def test_a_real_failed_build_reaches_the_outcome_as_its_step_and_cause(task_factory, tmp_path):
    """Through Harbor's own podman environment: the trial's exception is the reduced reason."""
    from harbor.models.trial.config import AgentConfig

    from modularrsi.engines.engine import Engine
    from modularrsi.tasks.trials import environment_config, run_trial

    if not Engine("podman").answers():
        pytest.skip("podman does not answer here (scripts/engine-setup.sh installs and configures it)")
    toml = "[verifier]\ntimeout_sec = 60.0\n[agent]\ntimeout_sec = 60.0\n[environment]\nallow_internet = true\n"
    task = task_factory(name="broken-build", toml=toml, dockerfile="FROM scratch\nCOPY missing.txt /missing.txt\n")
    outcome = await run_trial(task, AgentConfig(name="oracle"), tmp_path / "trials", environment_config("podman"),
                              "broken-build")
    assert outcome.reward is None and outcome.exception is not None and "podman-compose" not in outcome.exception
    assert outcome.exception.startswith("RuntimeError: image build failed at STEP 2/2: COPY missing.txt /missing.txt: ")
    assert "no such file or directory" in outcome.exception and len(outcome.exception) < 500
