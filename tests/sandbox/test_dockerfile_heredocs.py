"""BuildKit heredocs (``RUN <<EOF``, ``RUN <<'EOF' bash``, ``COPY <<EOF file``): the body belongs to its
instruction and is never read as Dockerfile instructions; a RUN heredoc is the script its shell runs."""

from __future__ import annotations

import pytest
from sandbox_helpers import started

from modularrsi.sandbox.dockerfile import DockerfileRefused, RunStep, parse_dockerfile

#: A body whose lines would each be a bogus instruction if read as the Dockerfile's own.
SCRIPT = """\
set -e
apt-get update
apt-get install -y --no-install-recommends jq
# a comment inside the script
FROM=not-an-instruction
cat > /app/config.ini <<'INI'
[main]
user = it's me
INI
echo "done $GREETING" > /app/done.txt
"""


def plan_of(tmp_path, text):
    path = tmp_path / "Dockerfile"
    path.write_text(text)
    return parse_dockerfile(path)


@pytest.mark.parametrize("opening", ["RUN <<EOF", "RUN <<'EOF'", "RUN <<-\"EOF\"", "RUN <<EOF bash",
                                     "RUN <<'EOF' bash -e"])
def test_a_run_heredoc_is_one_script_step(tmp_path, opening):
    plan = plan_of(tmp_path, f"FROM debian:bookworm-slim\nWORKDIR /app\n{opening}\n{SCRIPT}EOF\nENV A=1\n")
    runs = [s for s in plan.steps if isinstance(s, RunStep)]
    assert len(runs) == 1 and runs[0].line == 3
    assert "cat > /app/config.ini <<'INI'\n[main]\nuser = it's me\nINI\n" in runs[0].command
    assert plan.host_packages == ["jq"] and plan.env == {"A": "1"}


def test_a_heredoc_fed_to_another_command_keeps_its_command(tmp_path):
    plan = plan_of(tmp_path, "FROM debian\nRUN python3 <<'PY' > /tmp/out.txt\nprint('FROM x')\nPY\n")
    assert plan.steps[0].command == "python3 <<'PY' > /tmp/out.txt\nprint('FROM x')\nPY\n"


def test_copy_heredoc_writes_the_file(tmp_path):
    plan = plan_of(tmp_path, "FROM debian\nARG WHO=world\nCOPY <<EOF /app/hello.txt\nhello ${WHO}\nEOF\n"
                             "COPY <<'EOF' /app/raw.txt\nkeep ${WHO}\nEOF\n")
    assert len(plan.steps) == 2 and all(isinstance(s, RunStep) for s in plan.steps)


def test_an_unterminated_heredoc_is_one_problem(tmp_path):
    with pytest.raises(DockerfileRefused) as err:
        plan_of(tmp_path, "FROM debian\nRUN <<EOF\necho hi\nRUN echo more\n")
    assert err.value.problems == ["line 2: the heredoc <<EOF is never closed by a line 'EOF'"]


def test_a_refused_from_line_is_named_and_not_called_missing(tmp_path):
    with pytest.raises(DockerfileRefused) as err:
        plan_of(tmp_path, "FROM alpine:3.19\nRUN echo hi\n")
    assert err.value.problems == ["line 1: base image 'alpine:3.19' does not map onto this host's tools "
                                  "(known bases: buildpack-deps, debian, gcc, python, ubuntu)"]
    with pytest.raises(DockerfileRefused, match="no FROM line"):
        plan_of(tmp_path, "WORKDIR /app\n")


async def test_heredoc_steps_run_in_the_sandbox(task_factory, tmp_path):
    dockerfile = (f"FROM debian:bookworm-slim\nWORKDIR /app\nENV GREETING=hi\nRUN <<'EOF'\n{SCRIPT}EOF\n"
                  "ARG WHO=world\nCOPY <<EOF /app/hello.txt\nhello ${WHO}\nEOF\n"
                  "COPY <<'EOF' /app/raw.txt\nkeep ${WHO}\nEOF\n"
                  "RUN <<EOF\n#!/usr/bin/env python3\nopen('/app/py.txt', 'w').write('from python\\n')\nEOF\n")
    box = await started(task_factory(dockerfile=dockerfile), tmp_path / "t")
    try:
        result = await box.exec("cat /app/done.txt /app/config.ini /app/hello.txt /app/raw.txt /app/py.txt")
        assert result.stdout == "done hi\n[main]\nuser = it's me\nhello world\nkeep ${WHO}\nfrom python\n"
    finally:
        await box.stop(delete=True)
