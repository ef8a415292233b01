"""Offline base images and a Dockerfile-built task through Harbor's own podman and docker environments."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from modularrsi.engines.engine import Engine, find_engine
from modularrsi.engines.images import HOST_CA, from_images, list_needs, parse_ref, suite_of, why_not_buildable

CLI = [sys.executable, "-m", "modularrsi.cli"]


@pytest.mark.parametrize("raw, repository, tag, digest", [
    ("debian:bookworm-slim", "debian", "bookworm-slim", ""),
    ("public.ecr.aws/docker/library/debian:bookworm-slim@sha256:ab12", "debian", "bookworm-slim", "sha256:ab12"),
    ("docker.io/library/python:3.12-slim", "python", "3.12-slim", ""),
    ("ghcr.io/org/tool", "ghcr.io/org/tool", "latest", ""),
    ("localhost:5000/base:1", "localhost:5000/base", "1", ""),
])
def test_references_are_split_without_their_registry_prefix(raw, repository, tag, digest):
    ref = parse_ref(raw)
    assert (ref.repository, ref.tag, ref.digest) == (repository, tag, digest)
    assert ref.local_name == raw.split("@")[0]


def test_debian_suites_bootstrap_and_other_images_say_why_not():
    assert suite_of(parse_ref("mirror.gcr.io/library/debian:12-slim")) == "bookworm"
    assert suite_of(parse_ref("debian:trixie")) == "trixie"
    assert suite_of(parse_ref("debian:latest")) is None  # moves with time: never guessed
    assert "Go toolchain" in why_not_buildable(parse_ref("golang:1.24"))
    assert "CPython build" in why_not_buildable(parse_ref("python:3.12-slim"))


def test_from_lines_resolve_args_and_skip_build_stages(tmp_path):
    dockerfile = tmp_path / "Dockerfile"
    dockerfile.write_text(textwrap.dedent("""\
        ARG BASE=debian:bookworm-slim
        FROM --platform=linux/amd64 golang:1.24 AS build
        RUN go build ./...
        FROM build AS test
        FROM ${BASE}@sha256:0123
        COPY --from=build /out /opt/out
        FROM scratch
        """))
    assert from_images(dockerfile) == ["golang:1.24", "debian:bookworm-slim@sha256:0123"]


ENGINE = find_engine()
needs_engine = pytest.mark.skipif(ENGINE is None, reason="no container engine answers here "
                                  "(scripts/engine-setup.sh installs and configures podman)")

TB_DOCKERFILE = """\
FROM debian:bookworm-slim AS build
RUN echo built > /artifact.txt

FROM --platform=linux/amd64 public.ecr.aws/docker/library/debian:bookworm-slim@sha256:PINNED
ARG TOOLS=/opt/tools
RUN apt-get update && apt-get install -y --no-install-recommends python3 python3-venv tmux \\
    && rm -rf /var/lib/apt/lists/*
RUN python3 -m venv /opt/verifier && /opt/verifier/bin/pip install --quiet pytest==8.3.4
ENV PATH=${TOOLS}/bin:${PATH}
COPY helper.sh ${TOOLS}/bin/helper
COPY --from=build /artifact.txt /opt/artifact.txt
WORKDIR /app
"""
TB_TEST = """\
#!/bin/bash
cat > /tmp/test_out.py <<'PY'
def test_out():
    assert open("/app/out.txt").read().strip() == "helper-ok"
def test_artifact():
    assert open("/opt/artifact.txt").read().strip() == "built"
PY
if /opt/verifier/bin/pytest -q /tmp/test_out.py > /logs/verifier/pytest.txt; then echo 1; else echo 0; fi \
    > /logs/verifier/reward.txt
"""


def terminal_bench_style_task(root: Path) -> Path:
    """A task shaped like Terminal-Bench 2's: apt-get installs, a verifier venv under /opt, ENV PATH with
    ${PATH}, COPY into /opt, a multi-stage build, a registry-qualified base."""
    task = root / "tb-style"
    for part in ("environment", "tests", "solution"):
        (task / part).mkdir(parents=True)
    (task / "environment" / "Dockerfile").write_text(TB_DOCKERFILE.replace("PINNED", "ab" * 32))
    (task / "environment" / "helper.sh").write_text("#!/bin/sh\necho helper-ok\n")
    (task / "environment" / "helper.sh").chmod(0o755)
    (task / "instruction.md").write_text("Write the output of the `helper` command into /app/out.txt.\n")
    (task / "task.toml").write_text(textwrap.dedent("""\
        version = "1.0"
        [metadata]
        category = "systems-and-os"
        difficulty = "easy"
        [verifier]
        timeout_sec = 180.0
        [agent]
        timeout_sec = 180.0
        [environment]
        build_timeout_sec = 900.0
        memory_mb = 1024
        allow_internet = false
        """))
    (task / "solution" / "solve.sh").write_text("#!/bin/bash\nhelper > /app/out.txt\n")
    (task / "tests" / "test.sh").write_text(TB_TEST)
    return task


def run_cli(*args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "COLUMNS": "200"}
    return subprocess.run([*CLI, *args], capture_output=True, text=True, env=env, timeout=1800)


BOOTSTRAPPED: set[str] = set()


def bootstrap_bases(engine) -> None:
    """The task's two base names, bootstrapped from Debian's archive into ``engine`` (once a session)."""
    if engine.name in BOOTSTRAPPED:
        return
    bases = ["debian:bookworm-slim", "public.ecr.aws/docker/library/debian:bookworm-slim"]
    ca = ["--trust-host-ca"] if HOST_CA.is_file() else []
    booted = run_cli("images", "bootstrap", *bases, "--engine", engine.name, *ca)
    assert booted.returncode == 0, booted.stderr
    BOOTSTRAPPED.add(engine.name)


def test_terminal_bench_style_task_validates_through_each_engine(tmp_path, engine):
    task = terminal_bench_style_task(tmp_path / "tasks")
    bootstrap_bases(engine)
    assert [n.status for n in list_needs([task], engine)] == ["present", "present"]

    refused = run_cli("tasks", "validate", str(task), "--env", "local", "--out", str(tmp_path / "local"))
    assert refused.returncode == 4 and "multi-stage build" in refused.stdout  # outside LocalSandbox's subset

    result = run_cli("tasks", "validate", str(task), "--env", engine.name, "--out", str(tmp_path / "out"))
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-2000:]
    report = json.loads((tmp_path / "out" / "validation.json").read_text())
    assert (report["passed"], report["failed"]) == (1, 0)


@needs_engine
def test_images_list_names_what_is_missing_and_why(tmp_path):
    task = terminal_bench_style_task(tmp_path / "tasks")
    dockerfile = task / "environment" / "Dockerfile"
    dockerfile.write_text("FROM golang:1.24 AS build\nFROM debian:trixie-slim\n")
    result = run_cli("images", "list", str(task), "--engine", ENGINE.name)
    assert result.returncode == 0, result.stderr
    assert "golang:1.24" in result.stdout and "needs a Go toolchain" in result.stdout
    assert "debian:trixie-slim" in result.stdout and "bootstrap from Debian trixie" in result.stdout


PROBE = """\
#!/bin/bash
# Run by the oracle as the agent would: what can a process in the task's container reach or take?
gateway=$(python3 -c "import socket,struct
for line in open('/proc/net/route').read().splitlines()[1:]:
    f = line.split()
    if f[1] == '00000000':
        print(socket.inet_ntoa(struct.pack('<L', int(f[2], 16))))")
net=$(python3 -c "import socket,sys
try:
    socket.create_connection(('$gateway', PORT), timeout=5); print('connected')
except OSError as e: print('blocked')")
procs=$(python3 -c "import os, signal
pids = []
for _ in range(120):
    try:
        pid = os.fork()
    except OSError:
        break
    if pid == 0:
        signal.pause()
    pids.append(pid)
for pid in pids: os.kill(pid, signal.SIGKILL)
print(len(pids))")
mem=$(python3 -c "b = bytearray(400 << 20); print('allocated')" 2>/dev/null || echo killed)
echo "$net $procs $mem" > /app/probe.txt
"""


@pytest.mark.parametrize("internet", [False, True])
async def test_container_trials_keep_the_task_network_memory_and_process_limits(tmp_path, internet, engine):
    import socket as sockets

    from harbor.models.trial.config import AgentConfig

    from modularrsi.tasks.trials import environment_config, run_trial

    bootstrap_bases(engine)
    listener = sockets.socket()
    listener.bind(("0.0.0.0", 0))  # reached only through the trial's own container network, if at all
    listener.listen()
    task = terminal_bench_style_task(tmp_path / "tasks")
    toml = (task / "task.toml").read_text().replace("allow_internet = false", f"allow_internet = {internet}".lower())
    (task / "task.toml").write_text(toml.replace("memory_mb = 1024", "memory_mb = 256\npids_max = 64"))
    (task / "solution" / "solve.sh").write_text(PROBE.replace("PORT", str(listener.getsockname()[1])))
    (task / "tests" / "test.sh").write_text("#!/bin/bash\ncp /app/probe.txt /logs/verifier/probe.txt\n"
                                            "echo 1 > /logs/verifier/reward.txt\n")
    try:
        outcome = await run_trial(task, AgentConfig(name="oracle"), tmp_path / "trials",
                                  environment_config(engine.name), f"probe-{internet}")
    finally:
        listener.close()
    assert outcome.exception is None, outcome.exception
    net, procs, mem = (outcome.trial_dir / "verifier" / "probe.txt").read_text().split()
    assert net == ("connected" if internet else "blocked")
    assert int(procs) < 64 and mem == "killed"


async def test_allowlist_tasks_are_refused_when_the_proxy_image_cannot_be_had(tmp_path, engine):
    from harbor.models.trial.config import AgentConfig

    from modularrsi.engines.offline import OfflineDocker, OfflinePodman
    from modularrsi.tasks.trials import environment_config, run_trial

    bootstrap_bases(engine)
    if not {"podman": OfflinePodman, "docker": OfflineDocker}[engine.name].sidecar_standin_needed():
        pytest.skip("Harbor's egress proxy image is present here: allowlist mode runs as Harbor's")
    task = terminal_bench_style_task(tmp_path / "tasks")
    toml = (task / "task.toml").read_text().replace("allow_internet = false",
                                                     'network_mode = "allowlist"\nallowed_hosts = ["example.org"]')
    (task / "task.toml").write_text(toml)
    outcome = await run_trial(task, AgentConfig(name="oracle"), tmp_path / "trials",
                              environment_config(engine.name), "allowlist")
    assert outcome.reward is None and "network_mode='allowlist' needs Harbor's gost egress proxy" in outcome.exception


def test_env_auto_picks_local_for_the_subset_and_an_engine_for_the_rest(tmp_path):
    from testutil import REPO

    from modularrsi.tasks.trials import EnvironmentUnavailable, auto_choice, resolve_environment

    shipped = REPO / "tasks" / "pool" / "crm-contacts-dedup-by-email"
    assert auto_choice(shipped) == "local"
    assert resolve_environment("auto", shipped)[0] == "local"
    task = terminal_bench_style_task(tmp_path / "tasks")
    assert auto_choice(task, engine="podman") == "podman"
    refusal = r"tb-style: .*line 8: 'pip install' into the venv .*multi-stage build.*; no container engine answers"
    with pytest.raises(EnvironmentUnavailable, match=refusal + " here: run scripts/engine-setup.sh"):
        auto_choice(task, engine=None)
    if ENGINE is not None:
        assert resolve_environment("auto", task)[0] == ENGINE.name


def test_a_task_whose_base_image_is_missing_is_refused_in_one_line_before_a_trial(tmp_path):
    from modularrsi.tasks.trials import EnvironmentUnavailable, resolve_environment

    task = terminal_bench_style_task(tmp_path / "tasks")
    dockerfile = task / "environment" / "Dockerfile"
    text = dockerfile.read_text().replace("FROM debian:bookworm-slim AS build", "FROM golang:1.24 AS build")
    dockerfile.write_text(text)
    with pytest.raises(EnvironmentUnavailable) as refused:
        resolve_environment("podman", task)
    message = str(refused.value)
    assert "\n" not in message and message.startswith("tb-style: needs ") and "not in podman's local store" in message
    assert "golang:1.24 (FROM at environment/Dockerfile:1" in message  # the debian bases too, if not bootstrapped
    assert "Go toolchain" in message and "it needs a registry" in message


@pytest.mark.parametrize("engine_name", ["docker", "podman"])
def test_an_engine_that_does_not_answer_is_refused_in_one_line_before_a_trial(tmp_path, monkeypatch, engine_name):
    import modularrsi.tasks.trials as trials

    monkeypatch.setattr(trials, "_answers", lambda engine: False)
    task = terminal_bench_style_task(tmp_path / "tasks")
    with pytest.raises(trials.EnvironmentUnavailable) as refused:
        trials.resolve_environment(engine_name, task)
    message = str(refused.value)
    assert "\n" not in message and message.startswith(f"tb-style: {engine_name} does not answer here")
    assert ("dockerd &" in message) == (engine_name == "docker") and "engine-setup.sh" in message


def test_an_engine_found_silent_is_asked_again_and_one_that_answered_is_not(monkeypatch):
    import modularrsi.tasks.trials as trials
    from modularrsi.engines.engine import Engine

    replies = iter([False, True])
    asked = []
    monkeypatch.setattr(trials, "_ANSWERED", set())
    monkeypatch.setattr(Engine, "answers", lambda self: asked.append(1) or next(replies))
    assert trials._answers("docker") is False  # the daemon is not up yet
    assert trials._answers("docker") is True  # started since: found
    assert trials._answers("docker") is True and len(asked) == 2  # kept


async def test_a_task_compose_file_cannot_interpolate_a_host_secret(tmp_path, monkeypatch):
    """Compose fills ``${NAME}`` in a task's docker-compose.yaml from the environment it runs in: only the
    engine's own variables and those the user names (MODULARRSI_PASS_ENV) are in it. One engine (podman):
    both run through the same offline mixin, whose compose environment is the one checked."""
    from harbor.models.trial.config import AgentConfig

    from modularrsi.tasks.trials import environment_config, run_trial
    from modularrsi.util.hostenv import PASS_ENV

    engine = Engine("podman")
    if not engine.answers():
        pytest.skip("podman does not answer here (scripts/engine-setup.sh installs and configures it)")
    bootstrap_bases(engine)
    monkeypatch.setenv("MRSI_PLANTED_KEY", "sk-planted-compose")
    monkeypatch.delenv(PASS_ENV, raising=False)
    task = terminal_bench_style_task(tmp_path / "tasks")
    (task / "environment" / "docker-compose.yaml").write_text(
        'services:\n  main:\n    environment:\n      LEAK: "${MRSI_PLANTED_KEY:-absent}"\n')
    (task / "solution" / "solve.sh").write_text('#!/bin/bash\necho "leak=$LEAK" > /app/probe.txt\n')
    (task / "tests" / "test.sh").write_text("#!/bin/bash\ncp /app/probe.txt /logs/verifier/probe.txt\n"
                                            "echo 1 > /logs/verifier/reward.txt\n")
    outcome = await run_trial(task, AgentConfig(name="oracle"), tmp_path / "trials",
                              environment_config(engine.name), "compose-env")
    assert outcome.exception is None, outcome.exception
    assert (outcome.trial_dir / "verifier" / "probe.txt").read_text().strip() == "leak=absent"
