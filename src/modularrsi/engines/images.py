"""Base images for Dockerfile-built tasks on a machine without a registry.

``list_needs`` reads every image the tasks name (:mod:`modularrsi.engines.task_images`: ``FROM``,
``COPY --from=<image>``, compose services, a separate verifier's Dockerfile; build stages skipped)
and says, per image, whether the engine has it and, if not, whether it can be built here:
Debian-family bases (bookworm, trixie, their ``-slim`` and version names, under any of the registry
prefixes tasks use) are bootstrapped from Debian's archive with ``debootstrap``; any other image is
reported with the reason it cannot be, and nothing is tagged to pretend to be it.

Invariants: a bootstrapped image is tagged under exactly the names asked for (digests dropped:
an engine cannot hold an image under another manifest's digest); a suite's root filesystem is
built once and cached as a tarball, with the official image's apt sources (the release, its
``-updates`` and its ``-security`` suite, deb822 ``debian.sources``; :func:`apt_sources`);
``trust_host_ca`` copies this host's CA bundle into the image and points pip at it (for networks
that intercept TLS), and says so in the image's labels.
"""

from __future__ import annotations

import shutil
import subprocess
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from modularrsi.engines.cpython import build_python_image, find_cpython, python_want
from modularrsi.engines.engine import Engine, EngineError
from modularrsi.engines.refs import SUITES, ImageRef, parse_ref, suite_of
from modularrsi.engines.task_images import dockerfile_images as from_images
from modularrsi.engines.task_images import task_images
from modularrsi.engines.uv_image import build_uv_image, uv_version

__all__ = ["Need", "bootstrap", "from_images", "list_needs", "why_not_buildable"]

DEFAULT_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
HOST_CA = Path("/etc/ssl/certs/ca-certificates.crt")
CACHE = Path.home() / ".cache" / "modularrsi" / "rootfs"


def why_not_buildable(ref: ImageRef) -> str:
    """Why ``ref`` cannot be built from Debian's archive on this machine."""
    if ref.repository == "debian":
        return f"debian:{ref.tag} names no fixed suite this tool bootstraps ({', '.join(SUITES)})"
    family = {"python": "a CPython build", "golang": "a Go toolchain", "rust": "a Rust toolchain",
              "node": "a Node.js build", "ubuntu": "Ubuntu's archive", "alpine": "Alpine's archive"}
    what = family.get(ref.repository.split("/")[-1], "its publisher's layers")
    return f"{ref.repository}:{ref.tag} needs {what}, which Debian's archive does not provide; it needs a registry"


@dataclass
class Need:
    """One base image the tasks need, and where it stands on this machine."""

    image: str
    tasks: list[str] = field(default_factory=list)
    uses: list[str] = field(default_factory=list)  # where the tasks name it: "COPY --from at environment/Dockerfile:4"
    present: bool = False
    suite: str | None = None
    cpython: str = ""  # "3.12.1 (/root/.pyenv/versions/3.12.1)" when built from a host CPython
    uv: str = ""  # "0.8.15" for ghcr.io/astral-sh/uv:0.8.15, built from PyPI's uv wheel
    reason: str = ""

    @property
    def buildable(self) -> bool:
        return bool(self.suite or self.uv)

    @property
    def status(self) -> str:
        if self.present:
            return "present"
        if self.uv:
            return f"missing: build from PyPI's uv {self.uv} wheel (its static binaries)"
        if self.cpython:
            return f"missing: build from CPython {self.cpython} on Debian {self.suite}"
        return f"missing: bootstrap from Debian {self.suite}" if self.suite else f"missing: {self.reason}"


def list_needs(task_dirs: list[Path], engine: Engine | None) -> list[Need]:
    """The base images of ``task_dirs``, each with its status on ``engine`` (None: no engine)."""
    needs: dict[str, Need] = {}
    for task in task_dirs:
        for use in task_images(task):
            need = needs.setdefault(use.image, Need(use.image))
            need.tasks += [task.name] if task.name not in need.tasks else []
            need.uses += [str(use)] if str(use) not in need.uses else []
    for need in needs.values():
        ref = parse_ref(need.image)
        need.present = engine is not None and engine.has_image(ref.local_name)
        _plan(need, ref)
    return sorted(needs.values(), key=lambda n: n.image)


def _plan(need: Need, ref: ImageRef) -> None:
    """How ``need`` can be built here (a Debian suite, a host CPython on one, PyPI's uv), or why not."""
    need.suite, need.uv = suite_of(ref), uv_version(ref) or ""
    want = python_want(ref)
    if need.uv:
        return
    if need.suite or want is None:
        need.reason = "" if need.suite else why_not_buildable(ref)
        return
    found = find_cpython(want)
    if isinstance(found, str):
        need.reason = f"{ref.repository}:{ref.tag} {found}"
        return
    need.suite, need.cpython = want.suite, f"{found[0]} ({found[1]})"


def bootstrap(names: list[str], engine: Engine, trust_host_ca: bool = False, cache: Path = CACHE) -> dict[str, str]:
    """Build each name from Debian's archive (a Debian suite), from a host CPython on a Debian suite
    (an official ``python`` tag) or from PyPI's uv wheel (``ghcr.io/astral-sh/uv:X.Y.Z``), and tag it
    under exactly that name (digest dropped). Returns name -> what happened; raises
    :class:`EngineError` for a name it cannot build."""
    needs = [Need(name) for name in names]
    for need in needs:
        _plan(need, parse_ref(need.image))
    bad = [f"{n.image} ({n.reason})" for n in needs if not n.buildable]
    if bad:
        raise EngineError(f"cannot bootstrap {'; '.join(bad)}")
    done = {n.image: build_uv_image(engine, parse_ref(n.image), _tag_names(parse_ref(n.image))) for n in needs if n.uv}
    for suite in sorted({n.suite for n in needs if n.suite}):
        local = f"localhost/modularrsi-debian:{suite}{'-hostca' if trust_host_ca else ''}"
        if not engine.has_image(local) or trust_host_ca:
            _import_suite(engine, suite, local, trust_host_ca, cache)
        for need in (n for n in needs if n.suite == suite):
            ref = parse_ref(need.image)
            if need.cpython:
                done[ref.raw] = build_python_image(engine, ref, local, _tag_names(ref))
            else:
                engine.tag(local, *_tag_names(ref))
                done[ref.raw] = f"tagged {ref.local_name} (Debian {suite} minbase)"
    return done


def _tag_names(ref: ImageRef) -> list[str]:
    """The reference as asked, and for a short name also its Docker Hub spelling (podman files a
    short name under localhost/, where a task naming docker.io/library/… would not find it)."""
    names = [ref.local_name]
    if "/" not in ref.local_name:
        names.append(f"docker.io/library/{ref.local_name}")
    return names


def rootfs_tarball(suite: str, cache: Path = CACHE) -> Path:
    """A cached minbase root filesystem of ``suite`` (debootstrap from Debian's archive), with the
    official image's apt sources."""
    tarball = cache / f"debian-{suite}-minbase-sources.tar"  # a new name: older tarballs list main only
    if tarball.is_file():
        return tarball
    if shutil.which("debootstrap") is None:
        raise EngineError("debootstrap is not installed; run scripts/engine-setup.sh as root "
                          "(or apt-get install debootstrap)")
    cache.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix=f"debootstrap-{suite}-", dir=cache) as tmp:
        rootfs = Path(tmp) / "rootfs"
        _check_run(["debootstrap", "--variant=minbase", suite, str(rootfs)], f"debootstrap {suite}")
        write_apt_sources(rootfs, suite)
        partial = tarball.with_suffix(".tmp")
        _check_run(["tar", "-C", str(rootfs), "-cf", str(partial), "."], f"tar {suite}")
        partial.rename(tarball)
    return tarball


ARCHIVE = "http://deb.debian.org"
KEYRING = "/usr/share/keyrings/debian-archive-keyring.gpg"


def apt_sources(suite: str) -> str:
    """``/etc/apt/sources.list.d/debian.sources`` as the official image of ``suite`` has it: the
    release and its updates from the archive, and its security suite from the security archive."""
    stanzas = [(f"{ARCHIVE}/debian", f"{suite} {suite}-updates"), (f"{ARCHIVE}/debian-security", f"{suite}-security")]
    return "\n".join(f"Types: deb\nURIs: {uri}\nSuites: {suites}\nComponents: main\nSigned-By: {KEYRING}\n"
                     for uri, suites in stanzas)


def write_apt_sources(rootfs: Path, suite: str) -> None:
    """Replace debootstrap's one-line ``sources.list`` (the release's ``main`` only) with :func:`apt_sources`."""
    apt = rootfs / "etc" / "apt"
    (apt / "sources.list").unlink(missing_ok=True)
    (apt / "sources.list.d").mkdir(parents=True, exist_ok=True)
    (apt / "sources.list.d" / "debian.sources").write_text(apt_sources(suite))


def _import_suite(engine: Engine, suite: str, ref: str, trust_host_ca: bool, cache: Path) -> None:
    tarball = rootfs_tarball(suite, cache)
    changes = [f"ENV PATH={DEFAULT_PATH}", 'CMD ["bash"]', f"LABEL org.modularrsi.bootstrap=debian-{suite}"]
    if not trust_host_ca:
        with tarball.open("rb") as stream:
            engine.import_rootfs(stream, ref, changes)
        return
    with tempfile.TemporaryDirectory(prefix="hostca-", dir=cache) as tmp:
        combined = Path(tmp) / "image.tar"
        shutil.copyfile(tarball, combined)
        _append_host_ca(combined, Path(tmp))
        with combined.open("rb") as stream:
            engine.import_rootfs(stream, ref, [*changes, "LABEL org.modularrsi.host-ca=trusted"])


#: Where the host's bundle goes in an image: the system bundle (until a package regenerates it) and
#: the local-certificates directory that ``update-ca-certificates`` folds into every regeneration.
CA_IN_IMAGE = ("etc/ssl/certs/ca-certificates.crt", "usr/local/share/ca-certificates/modularrsi-host-ca.crt")


def _append_host_ca(tarball: Path, workdir: Path) -> None:
    """Add this host's CA bundle to the image, and make pip use it."""
    if not HOST_CA.is_file():
        raise EngineError(f"{HOST_CA}: not found; --trust-host-ca needs the host's CA bundle there")
    extra = workdir / "extra"
    for rel in CA_IN_IMAGE:
        (extra / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(HOST_CA, extra / rel)
    (extra / "etc" / "pip.conf").write_text(f"[global]\ncert = /{CA_IN_IMAGE[1]}\n")
    members = [f"./{rel}" for rel in (*CA_IN_IMAGE, "etc/pip.conf")]
    _check_run(["tar", "-C", str(extra), "-rf", str(tarball), *members], "tar (host CA)")


def _check_run(argv: list[str], what: str) -> None:
    done = subprocess.run(argv, capture_output=True, timeout=1800)
    if done.returncode != 0:
        last = done.stderr.decode(errors="replace").strip().splitlines()[-1:] or [""]
        raise EngineError(f"{what} failed (exit {done.returncode}): {last[0]}")
