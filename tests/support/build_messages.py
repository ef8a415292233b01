"""What Harbor's podman and docker environments raise when a task's image build fails: the whole
compose command line, then the engine's build output (captured from podman-compose 1.6 / podman 4.3
here; the apt and docker outputs in those tools' own formats)."""

from __future__ import annotations

TRIAL = "/work/runs/validate-40/trials/uv-task__oracle1/environment-unpinned"
FILES = " ".join(f"-f {p}" for p in (
    "/work/main/.venv/lib/python3.12/site-packages/harbor/environments/docker/docker-compose-build.yaml",
    f"{TRIAL}/docker-compose.yaml", "/tmp/harbor-docker-mounts-k2j3/docker-compose-mounts.json",
    "/tmp/harbor-docker-env-9f8e/docker-compose-env.json",
    "/tmp/harbor-docker-resources-77aa/docker-compose-resources.json"))
COMMAND = f"podman-compose --in-pod=false --project-name uv-task__oracle1__x7pq2 {FILES} build"


def harbor_message(stdout: str, command: str = COMMAND, code: int = 125) -> str:
    """The text of Harbor's ``RuntimeError`` for a failed compose command (stderr merged into stdout)."""
    return (f"Docker compose command failed for environment uv-task. Command: {command}. Return code: {code}. "
            f"Stdout: {stdout}. Stderr: None. ")


PODMAN_COPY_FROM = """\
STEP 1/6: FROM debian:bookworm-slim
STEP 2/6: COPY --from=ghcr.io/astral-sh/uv:0.8.15 /uv /uvx /bin/
Trying to pull ghcr.io/astral-sh/uv:0.8.15...
Error: COPY --from=ghcr.io/astral-sh/uv:0.8.15: no stage or image found with that name
"""

PODMAN_APT_VERSION = """\
STEP 1/7: FROM debian:bookworm-slim
STEP 2/7: ENV DEBIAN_FRONTEND=noninteractive
--> Using cache 4c1d0a
STEP 3/7: RUN apt-get update && apt-get install -y --no-install-recommends foo=1.2 && rm -rf /var/lib/apt/lists/*
Get:1 http://deb.debian.org/debian bookworm InRelease [151 kB]
Get:2 http://deb.debian.org/debian bookworm/main amd64 Packages [8792 kB]
Fetched 8943 kB in 2s (4471 kB/s)
Reading package lists...
Reading package lists...
Building dependency tree...
Reading state information...
E: Version '1.2' for 'foo' was not found
Error: building at STEP "RUN apt-get update && apt-get install -y --no-install-recommends foo=1.2 && rm -rf \
/var/lib/apt/lists/*": while running runtime: exit status 100
"""

PODMAN_NO_HOST = """\
STEP 1/5: FROM debian:bookworm-slim
STEP 2/5: WORKDIR /app
STEP 3/5: RUN curl -LsSf https://astral.sh/uv/0.8.15/install.sh | sh
  % Total    % Received % Xferd  Average Speed   Time    Time     Time  Current
                                 Dload  Upload   Total   Spent    Left  Speed
  0     0    0     0    0     0      0      0 --:--:-- --:--:-- --:--:--     0
curl: (6) Could not resolve host: astral.sh
Error: building at STEP "RUN curl -LsSf https://astral.sh/uv/0.8.15/install.sh | sh": while running runtime: \
exit status 6
"""

PODMAN_MISSING_BASE = """\
STEP 1/2: FROM python:3.13-slim
Resolved "python" as an alias (/etc/containers/registries.conf.d/shortnames.conf)
Trying to pull docker.io/library/python:3.13-slim...
Error: creating build container: initializing source docker://python:3.13-slim: pinging container registry \
registry-1.docker.io: Get "https://registry-1.docker.io/v2/": dial tcp: lookup registry-1.docker.io on \
10.255.255.53:53: no such host
"""

DOCKER_CLASSIC_PIP = """\
Step 1/4 : FROM python:3.12-slim
 ---> 2a1b3c4d5e6f
Step 2/4 : WORKDIR /app
 ---> Using cache
 ---> 7f6e5d4c3b2a
Step 3/4 : RUN pip install --no-cache-dir numpy==9.9.9
 ---> Running in 0f1e2d3c4b5a
ERROR: Could not find a version that satisfies the requirement numpy==9.9.9 (from versions: 1.26.4, 2.0.0)
ERROR: No matching distribution found for numpy==9.9.9
The command '/bin/sh -c pip install --no-cache-dir numpy==9.9.9' returned a non-zero code: 1
"""

BUILDKIT_APT = """\
#0 building with "default" instance using docker driver
#5 [1/3] FROM docker.io/library/debian:bookworm-slim
#5 DONE 0.0s
#6 [2/3] RUN apt-get update && apt-get install -y foo=1.2
#6 0.412 Reading package lists...
#6 1.020 E: Version '1.2' for 'foo' was not found
#6 ERROR: process "/bin/sh -c apt-get update && apt-get install -y foo=1.2" did not complete successfully: \
exit code: 100
------
 > [2/3] RUN apt-get update && apt-get install -y foo=1.2:
1.020 E: Version '1.2' for 'foo' was not found
------
failed to solve: process "/bin/sh -c apt-get update && apt-get install -y foo=1.2" did not complete successfully: \
exit code: 100
"""
