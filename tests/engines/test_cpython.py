"""``python:X.Y-slim`` base images built from a CPython install on the host."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest
from tests.engines.test_images import ENGINE, needs_engine, run_cli

from modularrsi.engines.cpython import _copy_install, find_cpython, installs, python_want
from modularrsi.engines.images import HOST_CA, Need, _plan, list_needs
from modularrsi.engines.refs import parse_ref


@pytest.mark.parametrize("raw, version", [
    ("python:3.12-slim", "3.12"),
    ("public.ecr.aws/docker/library/python:3.11-slim", "3.11"),
    ("python:3.12.7-slim-bookworm", "3.12.7"),
    ("python:3.12", None),  # the full image carries a compiler toolchain: not built from a slim base
    ("python:3.12-slim-trixie", None),  # the host's builds link against bookworm's libraries
    ("python:latest", None),
    ("golang:1.22-bookworm", None),
])
def test_only_slim_bookworm_python_tags_are_built_from_a_host_cpython(raw, version):
    want = python_want(parse_ref(raw))
    assert (want.version if want else None) == version


def fake_install(root: Path, version: str) -> Path:
    minor = ".".join(version.split(".")[:2])
    prefix = root / version
    (prefix / "bin").mkdir(parents=True)
    (prefix / "bin" / f"python{minor}").write_text("")
    (prefix / "lib" / f"python{minor}" / "site-packages" / "somepkg").mkdir(parents=True)
    (prefix / "lib" / f"python{minor}" / "os.py").write_text("")
    (prefix / "lib" / f"python{minor}" / "test").mkdir()
    (prefix / "bin" / "pip3").write_text(f"#!{prefix}/bin/python{minor}\n")
    (prefix / "bin" / f"pydoc{minor}").write_text(f"#!{prefix}/bin/python{minor}\nimport pydoc\n")
    return prefix


def test_the_newest_matching_install_is_chosen_and_a_missing_one_is_named(tmp_path):
    for version in ("3.11.7", "3.12.1", "3.12.4"):
        fake_install(tmp_path, version)
    (tmp_path / "3.12.9").mkdir()  # not an install: no interpreter, no standard library
    assert set(installs([tmp_path])) == {"3.11.7", "3.12.1", "3.12.4"}
    want = python_want(parse_ref("python:3.12-slim"))
    assert find_cpython(want, [tmp_path]) == ("3.12.4", tmp_path / "3.12.4")
    assert find_cpython(python_want(parse_ref("python:3.12.1-slim")), [tmp_path])[0] == "3.12.1"
    reason = find_cpython(python_want(parse_ref("python:3.13-slim")), [tmp_path])
    assert isinstance(reason, str) and "3.13" in reason and "3.11.7, 3.12.1, 3.12.4" in reason


def test_the_copy_leaves_out_host_packages_and_rewrites_script_interpreters(tmp_path):
    prefix = fake_install(tmp_path / "src", "3.12.4")
    target = tmp_path / "usr-local"
    _copy_install(prefix, target, "3.12")
    lib = target / "lib" / "python3.12"
    assert (lib / "os.py").is_file() and not (lib / "test").exists()
    assert list((lib / "site-packages").iterdir()) == []  # the host's installed packages stay out
    assert not (target / "bin" / "pip3").exists()  # pip comes from ensurepip inside the image
    assert (target / "bin" / "pydoc3.12").read_text().startswith("#!/usr/local/bin/python3.12\n")


def test_images_list_says_which_cpython_a_python_base_would_be_built_from(tmp_path, monkeypatch):
    fake_install(tmp_path, "3.12.4")
    monkeypatch.setenv("MODULARRSI_CPYTHON", str(tmp_path))
    need = Need("python:3.12-slim")
    _plan(need, parse_ref(need.image))
    assert need.status == f"missing: build from CPython 3.12.4 ({tmp_path / '3.12.4'}) on Debian bookworm"
    need = Need("python:3.10-slim")
    monkeypatch.setenv("PYENV_ROOT", str(tmp_path / "none"))
    _plan(need, parse_ref(need.image))
    assert need.suite is None and "needs CPython 3.10" in need.reason


HOST_MINOR = max((".".join(v.split(".")[:2]) for v in installs()), default=None,
                 key=lambda m: tuple(int(p) for p in m.split(".")))

PYTHON_TASK_TEST = """\
#!/bin/bash
if python3 -m pytest -q /tests/test_outputs.py > /logs/verifier/pytest.txt; then echo 1; else echo 0; fi \\
    > /logs/verifier/reward.txt
"""


def python_slim_task(root: Path, minor: str) -> Path:
    """A task shaped like most public Terminal-Bench-2 tasks: python:X.Y-slim, pip installs into
    the system interpreter, the tests run with pytest."""
    task = root / "py-slim"
    for part in ("environment", "tests", "solution"):
        (task / part).mkdir(parents=True)
    (task / "environment" / "Dockerfile").write_text(textwrap.dedent(f"""\
        FROM python:{minor}-slim
        RUN pip install --no-cache-dir --quiet pytest==8.3.4
        WORKDIR /app
        """))
    (task / "instruction.md").write_text("Write the interpreter's version (X.Y) into /app/version.txt.\n")
    (task / "task.toml").write_text(textwrap.dedent("""\
        version = "1.0"
        [verifier]
        timeout_sec = 180.0
        [agent]
        timeout_sec = 180.0
        [environment]
        build_timeout_sec = 900.0
        allow_internet = true
        """))
    (task / "solution" / "solve.sh").write_text(
        "#!/bin/bash\npython3 -c 'import sys; print(\"%d.%d\" % sys.version_info[:2])' > /app/version.txt\n")
    (task / "tests" / "test.sh").write_text(PYTHON_TASK_TEST)
    (task / "tests" / "test_outputs.py").write_text(
        f"def test_version():\n    assert open('/app/version.txt').read().strip() == '{minor}'\n")
    return task


@needs_engine
@pytest.mark.skipif(HOST_MINOR is None, reason="no self-contained CPython install on this host (pyenv)")
def test_a_python_slim_task_validates_on_an_image_built_from_the_host_cpython(tmp_path):
    task = python_slim_task(tmp_path / "tasks", HOST_MINOR)
    ca = ["--trust-host-ca"] if HOST_CA.is_file() else []
    booted = run_cli("images", "bootstrap", f"python:{HOST_MINOR}-slim", "--engine", ENGINE.name, *ca)
    assert booted.returncode == 0, booted.stderr
    assert "built CPython" in booted.stdout
    assert [n.status for n in list_needs([task], ENGINE)] == ["present"]
    result = run_cli("tasks", "validate", str(task), "--env", ENGINE.name, "--out", str(tmp_path / "out"))
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-2000:]
    report = json.loads((tmp_path / "out" / "validation.json").read_text())
    assert (report["passed"], report["failed"]) == (1, 0)
