"""``ghcr.io/astral-sh/uv:X.Y.Z``, which tasks ``COPY --from``, built here from PyPI's uv wheel (its static
binaries at the image's root, as in the publisher's image)."""

from __future__ import annotations

import io
import subprocess
import tarfile
import zipfile

import pytest

from modularrsi.engines.engine import Engine, EngineError
from modularrsi.engines.images import list_needs
from modularrsi.engines.refs import parse_ref
from modularrsi.engines.uv_image import build_uv_image, image_tar, uv_version

UV = "ghcr.io/astral-sh/uv:0.8.15"


@pytest.mark.parametrize("raw, version", [
    (UV, "0.8.15"), (f"{UV}@sha256:ab12", "0.8.15"),
    ("ghcr.io/astral-sh/uv:latest", None),  # moves with time: never guessed
    ("ghcr.io/astral-sh/uv:0.8.15-python3.12-bookworm-slim", None),  # a whole distribution
    ("docker.io/astral/uv:0.8.15", None),
])
def test_only_bare_uv_release_tags_are_built(raw, version):
    assert uv_version(parse_ref(raw)) == version


def test_the_image_holds_the_wheels_two_binaries_at_its_root(tmp_path):
    wheel = tmp_path / "uv-0.8.15-py3-none-musllinux_1_1_x86_64.whl"
    with zipfile.ZipFile(wheel, "w") as archive:
        for name in ("uv", "uvx"):
            archive.writestr(f"uv-0.8.15.data/scripts/{name}", f"binary {name}")
        archive.writestr("uv/__init__.py", "")
    with tarfile.open(fileobj=io.BytesIO(image_tar(wheel, "0.8.15"))) as tar:
        assert [(m.name, m.mode) for m in tar.getmembers()] == [("uv", 0o755), ("uvx", 0o755)]
    with pytest.raises(EngineError, match="not a uv 0.9.0 wheel"):
        image_tar(wheel, "0.9.0")


def test_a_task_copying_uv_is_told_how_to_build_it(task_factory):
    from modularrsi.tasks.trials import EnvironmentUnavailable, check_base_images

    uv = "ghcr.io/astral-sh/uv:9.9.9"  # a release no store here holds (checking it downloads nothing)
    task = task_factory(name="uv-task", dockerfile=f"FROM scratch\nCOPY --from={uv} /uv /uvx /bin/\n")
    [need] = list_needs([task], None)
    assert need.status == "missing: build from PyPI's uv 9.9.9 wheel (its static binaries)"
    with pytest.raises(EnvironmentUnavailable, match=f"— run: modularrsi images bootstrap {uv}$"):
        check_base_images(task, "podman")


def test_a_build_copies_uv_out_of_the_local_image(tmp_path):
    engine = Engine("podman")
    if not engine.answers():
        pytest.skip("podman does not answer here (scripts/engine-setup.sh installs and configures it)")
    local = "localhost/modularrsi-test-uv:0.8.15"  # never the publisher's name: the store is shared
    try:
        build_uv_image(engine, parse_ref(UV), [local])
    except EngineError as exc:
        if "pip download" in str(exc):
            pytest.skip(f"the package index is not reachable here: {exc}")
        raise
    (tmp_path / "Containerfile").write_text(f"FROM scratch\nCOPY --from={local} /uv /uvx /bin/\n")
    try:
        engine.run("build", "-q", "-t", "localhost/modularrsi-test-uv-copy", str(tmp_path), timeout=300)
        done = subprocess.run(["podman", "run", "--rm", "localhost/modularrsi-test-uv-copy", "/bin/uv", "--version"],
                              capture_output=True, text=True, timeout=120)
        assert done.stdout.strip() == "uv 0.8.15"
    finally:
        subprocess.run(["podman", "rmi", "-f", "localhost/modularrsi-test-uv-copy", local], capture_output=True)
