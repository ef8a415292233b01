"""Every image a task needs from an image store, wherever it names one: FROM, ``COPY --from=<image>``,
a compose service's ``image:`` or its own Dockerfile, and a separate verifier's ``tests/Dockerfile``.
A task that needs an image the engine lacks is refused in one line before its trial."""

from __future__ import annotations

import textwrap

import pytest

from modularrsi.engines.images import list_needs

UV = "ghcr.io/astral-sh/uv:0.8.15"
SEPARATE_VERIFIER = textwrap.dedent("""\
    [verifier]
    timeout_sec = 60.0
    environment_mode = "separate"
    [agent]
    timeout_sec = 60.0
    [environment]
    network_mode = "no-network"
    """)


def images_of(task) -> dict[str, list[str]]:
    """image -> where the task names it."""
    return {need.image: need.uses for need in list_needs([task], None)}


def test_copy_from_an_image_is_needed_and_copy_from_a_stage_is_not(task_factory):
    task = task_factory(dockerfile=textwrap.dedent("""\
        ARG UV_VERSION=0.8.15
        FROM debian:bookworm-slim AS build
        RUN echo built > /out
        FROM debian:bookworm-slim
        COPY --from=ghcr.io/astral-sh/uv:${UV_VERSION} /uv /uvx /bin/
        COPY --from=build /out /out
        COPY --from=0 /out /out0
        RUN --mount=type=bind,from=docker.io/library/busybox:1.36,source=/bin,target=/mnt true
        """))
    assert images_of(task) == {"debian:bookworm-slim": ["FROM at environment/Dockerfile:2",
                                                        "FROM at environment/Dockerfile:4"],
                               UV: ["COPY --from at environment/Dockerfile:5"],
                               "docker.io/library/busybox:1.36": ["RUN --mount from at environment/Dockerfile:8"]}


def test_compose_services_name_their_images_or_their_own_dockerfiles(task_factory):
    compose = textwrap.dedent("""\
        services:
          main:
            environment:
              DB_HOST: db
          db:
            image: ${DB_IMAGE:-postgres:16-bookworm}
          cache:
            build:
              context: ./cache
            image: task-cache:built
        """)
    task = task_factory(files={"environment/docker-compose.yaml": compose,
                               "environment/cache/Dockerfile": f"FROM redis:7\nCOPY --from={UV} /uv /bin/\n"})
    assert images_of(task) == {"debian:bookworm-slim": ["FROM at environment/Dockerfile:1"],
                               "postgres:16-bookworm": ["compose service db at environment/docker-compose.yaml"],
                               "redis:7": ["FROM at environment/cache/Dockerfile:1"],
                               UV: ["COPY --from at environment/cache/Dockerfile:2"]}


def test_a_separate_verifier_dockerfile_is_read_too(task_factory):
    task = task_factory(toml=SEPARATE_VERIFIER, files={"tests/Dockerfile": "FROM python:3.13-slim-trixie\n"})
    assert images_of(task)["python:3.13-slim-trixie"] == ["FROM at tests/Dockerfile:1"]


def test_a_task_needing_an_image_the_store_lacks_is_refused_in_one_line(task_factory):
    from modularrsi.tasks.trials import EnvironmentUnavailable, check_base_images

    tool = "ghcr.io/example/tool:1.0"
    task = task_factory(name="tool-task", dockerfile=f"FROM scratch\nCOPY --from={tool} /tool /bin/\n")
    with pytest.raises(EnvironmentUnavailable) as refused:
        check_base_images(task, "podman")
    assert str(refused.value) == (f"tool-task: needs image {tool} (COPY --from at environment/Dockerfile:2), which "
                                  "is not in podman's local store: needs its publisher's layers, which Debian's "
                                  "archive does not provide; it needs a registry")


def test_a_heredoc_body_names_no_image(task_factory):
    task = task_factory(dockerfile="FROM debian:bookworm-slim\nRUN <<EOF\ncat > /Dockerfile.example <<'X'\n"
                                   "FROM python:3.12\nX\nEOF\nCOPY <<EOF /etc/notes\nFROM golang:1.24\nEOF\n")
    assert list(images_of(task)) == ["debian:bookworm-slim"]
