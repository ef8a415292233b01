"""The Dockerfile subset: what is planned, and what is refused with one line naming the place."""

import pytest

from modularrsi.sandbox.dockerfile import CopyStep, DockerfileRefused, RunStep, parse_dockerfile


def plan_of(tmp_path, text):
    path = tmp_path / "Dockerfile"
    path.write_text(text)
    return parse_dockerfile(path)


def test_subset_is_planned(tmp_path):
    plan = plan_of(tmp_path, """\
FROM debian:bookworm-slim
ARG NAME=world
RUN apt-get update && apt-get install -y --no-install-recommends python3 jq \\
    && rm -rf /var/lib/apt/lists/*
WORKDIR /app
ENV GREETING="hello ${NAME}" MODE=fast
COPY data/ /app/data/
COPY run.sh ./
RUN echo "$GREETING" > greeting.txt
CMD ["bash"]
""")
    assert plan.workdir == "/app"
    assert plan.env == {"GREETING": "hello world", "MODE": "fast"}
    assert plan.host_packages == ["python3", "jq"]
    copies = [s for s in plan.steps if isinstance(s, CopyStep)]
    runs = [s for s in plan.steps if isinstance(s, RunStep)]
    assert [c.target for c in copies] == ["/app/data/", "/app/"]
    assert len(runs) == 1 and runs[0].workdir == "/app" and runs[0].line == 9


def test_mixed_run_keeps_only_the_non_package_part(tmp_path):
    plan = plan_of(tmp_path, "FROM debian:bookworm\nRUN apt-get install -y git && git --version\n")
    assert plan.host_packages == ["git"]
    assert plan.steps[0].command.endswith("git --version")
    quoted = plan_of(tmp_path, "FROM debian\nRUN python3 -c 'print(\"a && b\")' && apt-get install -y jq\n")
    assert quoted.host_packages == ["jq"]


@pytest.mark.parametrize("text, needle", [
    ("FROM nvidia/cuda:12.0-base\n", "base image 'nvidia/cuda:12.0-base' does not map"),
    ("FROM debian AS build\nFROM debian\n", "multi-stage"),
    ("FROM debian\nRUN yum install -y gcc\n", "'yum' installs into the system image"),
    ("FROM python:3.12-slim\nRUN pip install numpy\n", "'pip install' writes into the system Python"),
    ("FROM debian\nCOPY --from=builder /x /y\n", "COPY --from"),
    ("FROM debian\nADD https://example.invalid/x.tgz /app/\n", "URL"),
    ("FROM debian\nHEALTHCHECK CMD true\nONBUILD RUN x\nVOLUME /data\nFOO bar\n", "FOO is outside"),
    ("WORKDIR /app\n", "no FROM line"),
])
def test_refusals_name_the_line(tmp_path, text, needle):
    with pytest.raises(DockerfileRefused) as err:
        plan_of(tmp_path, text)
    assert needle in str(err.value)
    assert "\n" not in str(err.value)
    assert str(tmp_path / "Dockerfile") in str(err.value)


def test_pip_into_a_target_is_allowed(tmp_path):
    plan = plan_of(tmp_path, "FROM python:3.11-slim\nRUN pip install --no-index --target /app/lib ./pkg\n")
    assert len(plan.steps) == 1


def test_variables_expand_as_docker_does(tmp_path):
    plan = plan_of(tmp_path, """\
ARG BASE=debian:bookworm-slim
FROM --platform=linux/amd64 ${BASE} AS final
ARG PREFIX
ARG TOOLS=/opt/tools
ENV PATH=${TOOLS}/bin:${PATH} \\
    MODE=${MODE:-fast} LABEL=${PREFIX:+set}
WORKDIR ${TOOLS:-/srv}/work
RUN echo "$TOOLS" > where.txt
""")
    assert plan.base == "debian:bookworm-slim"
    assert plan.env["PATH"] == "/opt/tools/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
    assert plan.env["MODE"] == "fast" and plan.env["LABEL"] == ""
    assert plan.workdir == "/opt/tools/work"
    run = plan.steps[0]
    assert dict(run.env)["TOOLS"] == "/opt/tools"  # ARG values reach RUN's environment, as in a build


def test_every_problem_is_reported_at_once(tmp_path):
    with pytest.raises(DockerfileRefused) as err:
        plan_of(tmp_path, """\
FROM golang:1.24 AS build
RUN go build -o /out/app .
FROM debian:bookworm-slim
COPY --from=build /out/app /usr/local/bin/app
RUN pip install requests
""")
    message = str(err.value)
    assert err.value.problems[0].startswith("line 1: base image 'golang:1.24'")
    assert "line 4: COPY --from" in message and "line 5: 'pip install' writes into the system Python" in message
    assert "multi-stage build (2 stages)" in message and "\n" not in message


@pytest.mark.parametrize("run, reason", [
    ("python3 -m venv /opt/venv && /opt/venv/bin/pip install pytest",
     "'pip install' into the venv at /opt/venv writes under /opt"),
    ("python3 -m venv /opt/v && . /opt/v/bin/activate && pip install pytest",
     "'pip install' into the venv at /opt/v writes under /opt"),
    ("pip3 install --break-system-packages pytest", "'pip install' writes into the system Python"),
])
def test_pip_refusals_say_where_it_would_write(tmp_path, run, reason):
    with pytest.raises(DockerfileRefused, match=reason):
        plan_of(tmp_path, f"FROM python:3.12-slim\nWORKDIR /app\nRUN {run}\n")


def test_pip_into_a_venv_under_the_workdir_is_replayed(tmp_path):
    plan = plan_of(tmp_path, "FROM python:3.12-slim\nWORKDIR /app\nRUN python3 -m venv .venv && "
                             ".venv/bin/pip install --no-index ./pkg\n")
    assert len(plan.steps) == 1
