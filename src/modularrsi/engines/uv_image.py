"""A local ``ghcr.io/astral-sh/uv:X.Y.Z`` from PyPI's ``uv`` wheel.

Tasks copy uv out of its publisher's image (``COPY --from=ghcr.io/astral-sh/uv:0.8.15 /uv /uvx /bin/``).
That image is ``FROM scratch`` with two static binaries, ``/uv`` and ``/uvx``; PyPI's musllinux wheel of
the same version carries the same static builds (``uv-X.Y.Z.data/scripts/uv``, ``uvx``). This module
downloads that wheel with pip (the package index is reachable where no image registry is), lays the
two binaries at the root of a one-layer image and tags it under the name the task uses.

Invariants: only a bare release tag (``0.8.15``) is built: ``latest`` moves, and derived tags
(``0.8.15-python3.12-bookworm``) are whole distributions; the binaries are checked to be the asked
version's (the wheel's own name) and to run here (``uv --version``); the image's labels say it is a
stand-in built from the wheel, and which.
"""

from __future__ import annotations

import io
import platform
import re
import subprocess
import sys
import tarfile
import tempfile
import zipfile
from pathlib import Path

from modularrsi.engines.engine import Engine, EngineError
from modularrsi.engines.refs import ImageRef

REPOSITORY = "ghcr.io/astral-sh/uv"
BINARIES = ("uv", "uvx")


def uv_version(ref: ImageRef) -> str | None:
    """The release ``ref`` names when it is astral's bare uv image (``ghcr.io/astral-sh/uv:0.8.15``)."""
    if ref.repository != REPOSITORY or not re.fullmatch(r"\d+\.\d+\.\d+", ref.tag):
        return None
    return ref.tag


def wheel_platform() -> str:
    """The musllinux platform tag of this machine (the wheels whose binaries are static)."""
    return f"musllinux_1_1_{platform.machine()}"


def image_tar(wheel: Path, version: str) -> bytes:
    """A root filesystem tarball holding the wheel's ``uv`` and ``uvx`` at ``/`` (mode 755)."""
    out = io.BytesIO()
    with zipfile.ZipFile(wheel) as archive, tarfile.open(fileobj=out, mode="w") as tar:
        for name in BINARIES:
            try:
                data = archive.read(f"uv-{version}.data/scripts/{name}")
            except KeyError:
                raise EngineError(f"{wheel.name}: no uv-{version}.data/scripts/{name}; not a uv {version} wheel") \
                    from None
            member = tarfile.TarInfo(name)
            member.size, member.mode = len(data), 0o755
            tar.addfile(member, io.BytesIO(data))
    return out.getvalue()


def build_uv_image(engine: Engine, ref: ImageRef, targets: list[str]) -> str:
    """Build ``ref`` from PyPI's uv wheel of its version, tag it as ``targets``, say what was built."""
    version = uv_version(ref)
    if version is None:
        raise EngineError(f"{ref.raw}: not a bare uv release tag (ghcr.io/astral-sh/uv:X.Y.Z)")
    with tempfile.TemporaryDirectory(prefix="uv-image-") as tmp:
        wheel = _download(version, Path(tmp))
        rootfs = image_tar(wheel, version)
        _check_runs(rootfs, version, Path(tmp))
        labels = [f"LABEL org.modularrsi.standin=astral-uv-{version}", f"LABEL org.modularrsi.source={wheel.name}"]
        (Path(tmp) / "image.tar").write_bytes(rootfs)
        with (Path(tmp) / "image.tar").open("rb") as stream:  # the engine reads it on its stdin
            engine.import_rootfs(stream, targets[0], ['ENTRYPOINT ["/uv"]', *labels])
    engine.tag(targets[0], *targets[1:])
    return f"built uv {version} (static binaries of PyPI's {wheel.name}) as a stand-in for {ref.local_name}"


def _download(version: str, into: Path) -> Path:
    argv = [sys.executable, "-m", "pip", "download", "--quiet", "--disable-pip-version-check", "--no-deps",
            "--only-binary=:all:", "--platform", wheel_platform(), "--python-version", "3.12",
            f"uv=={version}", "-d", str(into)]
    done = subprocess.run(argv, capture_output=True, text=True, timeout=600)
    wheels = sorted(into.glob(f"uv-{version}-*.whl"))
    if done.returncode != 0 or not wheels:
        last = (done.stderr.strip().splitlines() or ["no wheel"])[-1]
        raise EngineError(f"pip download uv=={version} ({wheel_platform()}) failed: {last}")
    return wheels[0]


def _check_runs(rootfs: bytes, version: str, workdir: Path) -> None:
    """The binary prints the asked version here (a static build runs on any Linux of its architecture)."""
    with tarfile.open(fileobj=io.BytesIO(rootfs)) as tar:
        tar.extract("uv", workdir / "check", filter="tar")
    done = subprocess.run([str(workdir / "check" / "uv"), "--version"], capture_output=True, text=True, timeout=60)
    if done.returncode != 0 or done.stdout.split()[1:2] != [version]:
        raise EngineError(f"uv {version} from the wheel does not run here: {(done.stdout or done.stderr).strip()}")
