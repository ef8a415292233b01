"""``python:X.Y[.Z]-slim`` base images from a CPython this host already has.

Most public Terminal-Bench-2-format tasks start ``FROM python:3.12-slim``: Debian with CPython built
from source under ``/usr/local``. Debian's archive has no such build, but a self-contained CPython
install on the host (a pyenv version, or any ``--prefix`` build: ``PREFIX/bin/pythonX.Y`` beside
``PREFIX/lib/pythonX.Y``) is one. This module copies its interpreter and standard library into
``/usr/local`` of a bootstrapped Debian base, installs the shared libraries its extension modules
link against from Debian's archive, installs pip with ``ensurepip`` (the host's site-packages are
never copied) and tags the result under the task's name.

Invariants: the version matches what the tag asks for (``3.12`` any 3.12.x, ``3.12.7`` exactly
3.12.7) or nothing is built and the reason says which versions the host has; the image's labels
record the CPython's version and source and the Debian suite, which is bookworm (what the host's
builds link against): a tag naming another suite, or a full (non-slim) image, is not built.
"""

from __future__ import annotations

import os
import re
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path

from modularrsi.engines.engine import Engine, EngineError
from modularrsi.engines.refs import ImageRef

#: Shared libraries of CPython's extension modules (ssl, ctypes, sqlite3, readline, …) and what the
#: official slim images carry besides.
RUNTIME_PACKAGES = ("ca-certificates", "netbase", "tzdata", "libssl3", "libffi8", "libsqlite3-0", "zlib1g",
                    "libbz2-1.0", "liblzma5", "libreadline8", "libncursesw6", "libuuid1", "libexpat1",
                    "libnsl2", "libtirpc3", "libcrypt1", "libgdbm6")
#: Parts of an install a slim image leaves out (the test suite, Tk, the host's installed packages).
LEFT_OUT = ("test", "idlelib", "tkinter", "turtledemo", "site-packages", "__pycache__", "config-*")
_TAG = re.compile(r"^(?P<version>3\.\d+(?:\.\d+)?)-slim(?:-(?P<suite>[a-z]+))?$")
#: The suite the host's CPython builds link against (this project's machines run Debian bookworm).
HOST_SUITE = "bookworm"


@dataclass(frozen=True)
class PythonWant:
    """What a ``python:`` reference asks for."""

    version: str  # "3.12" or "3.12.7"
    suite: str


def python_want(ref: ImageRef) -> PythonWant | None:
    """The CPython version ``ref`` names, if it is an official ``python:X.Y[.Z]-slim`` tag on the
    suite the host's CPython links against (None otherwise: the full images carry a compiler
    toolchain, and another suite has other library versions)."""
    match = _TAG.match(ref.tag) if ref.repository == "python" else None
    if match is None or (match["suite"] or HOST_SUITE) != HOST_SUITE:
        return None
    return PythonWant(match["version"], HOST_SUITE)


def cpython_roots() -> list[Path]:
    """Where self-contained CPython installs are looked for: ``$MODULARRSI_CPYTHON`` (a
    colon-separated list of prefixes or directories of prefixes), then pyenv's versions."""
    roots = [Path(p) for p in os.environ.get("MODULARRSI_CPYTHON", "").split(":") if p]
    pyenv = Path(os.environ.get("PYENV_ROOT", Path.home() / ".pyenv")) / "versions"
    return [*roots, pyenv]


def _version_of(prefix: Path) -> str | None:
    """The X.Y.Z of a prefix install, from its directory layout (nothing is executed)."""
    match = re.fullmatch(r"(3\.\d+\.\d+)", prefix.name)
    if match is None:
        return None
    minor = ".".join(match[1].split(".")[:2])
    ok = (prefix / "bin" / f"python{minor}").is_file() and (prefix / "lib" / f"python{minor}" / "os.py").is_file()
    return match[1] if ok else None


def installs(roots: list[Path] | None = None) -> dict[str, Path]:
    """Every self-contained CPython install found, by X.Y.Z version (the first root wins a tie)."""
    found: dict[str, Path] = {}
    for root in roots if roots is not None else cpython_roots():
        for prefix in [root, *sorted(root.iterdir())] if root.is_dir() else []:
            version = _version_of(prefix)
            if version and version not in found:
                found[version] = prefix
    return found


def _key(version: str) -> tuple[int, ...]:
    return tuple(int(part) for part in version.split("."))


def find_cpython(want: PythonWant, roots: list[Path] | None = None) -> tuple[str, Path] | str:
    """The newest install matching ``want`` as (version, prefix), or why there is none."""
    found = installs(roots)
    matching = [v for v in found if v == want.version or v.startswith(want.version + ".")]
    if matching:
        best = max(matching, key=_key)
        return best, found[best]
    have = ", ".join(sorted(found, key=_key)) or "none"
    return (f"needs CPython {want.version}, which this host does not have as a self-contained install "
            f"(found: {have}; set MODULARRSI_CPYTHON to a prefix, or install it with pyenv)")


def build_python_image(engine: Engine, ref: ImageRef, base: str, targets: list[str],
                       roots: list[Path] | None = None) -> str:
    """Build ``ref`` on ``base`` (a bootstrapped Debian image of the wanted suite), tag it as
    ``targets``, and return one line saying what was built."""
    want = python_want(ref)
    if want is None:
        raise EngineError(f"{ref.raw}: not an official python tag of a Debian suite this tool bootstraps")
    found = find_cpython(want, roots)
    if isinstance(found, str):
        raise EngineError(f"{ref.raw}: {found}")
    version, prefix = found
    minor = ".".join(version.split(".")[:2])
    with tempfile.TemporaryDirectory(prefix="cpython-image-") as tmp:
        context = Path(tmp)
        _copy_install(prefix, context / "usr-local", minor)
        (context / "Containerfile").write_text(_containerfile(base, version, minor, prefix, want.suite))
        engine.run("build", "-t", targets[0], "-f", str(context / "Containerfile"), str(context), timeout=1800)
    engine.tag(targets[0], *targets[1:])
    return f"built CPython {version} (from {prefix}) on Debian {want.suite} minbase"


def _copy_install(prefix: Path, target: Path, minor: str) -> None:
    """The interpreter, its shared library, headers and standard library; scripts whose first line
    names the old prefix are rewritten to /usr/local; the host's installed packages stay out."""
    shutil.copytree(prefix, target, symlinks=True, ignore=shutil.ignore_patterns(*LEFT_OUT))
    (target / "lib" / f"python{minor}" / "site-packages").mkdir()
    for old in ("pip", "pip3", f"pip{minor}"):
        (target / "bin" / old).unlink(missing_ok=True)
    for script in (target / "bin").iterdir():
        if script.is_symlink() or not script.is_file():
            continue
        head = script.read_bytes()[:200]
        if head.startswith(b"#!") and str(prefix).encode() in head.split(b"\n")[0]:
            text = script.read_bytes().replace(str(prefix).encode(), b"/usr/local", 1)
            script.write_bytes(text)


def _containerfile(base: str, version: str, minor: str, prefix: Path, suite: str) -> str:
    packages = " ".join(RUNTIME_PACKAGES)
    return "\n".join([
        f"FROM {base}",
        "ENV DEBIAN_FRONTEND=noninteractive",
        f"RUN apt-get update && apt-get install -y --no-install-recommends {packages} && rm -rf /var/lib/apt/lists/*",
        "COPY usr-local/ /usr/local/",
        f"RUN ldconfig && python{minor} -m ensurepip --default-pip && rm -rf /root/.cache"
        f" && ln -sf pip{minor} /usr/local/bin/pip3 && ln -sf pip3 /usr/local/bin/pip"
        f" && python3 -c 'import ssl, sqlite3, ctypes, zlib, bz2, lzma, readline'",
        "ENV LANG=C.UTF-8",
        f"ENV PYTHON_VERSION={version}",
        f"LABEL org.modularrsi.bootstrap=debian-{suite} org.modularrsi.cpython={version}"
        f" org.modularrsi.cpython-source={prefix}",
        'CMD ["python3"]',
        "",
    ])
