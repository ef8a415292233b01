"""Base images for Dockerfile-built tasks on a machine without a registry.

``list_needs`` reads every ``FROM`` of the tasks' Dockerfiles (ARG defaults resolved, build stages
skipped) and says, per image, whether the engine has it and, if not, whether it can be built here:
Debian-family bases (bookworm, trixie, their ``-slim`` and version names, under any of the registry
prefixes tasks use) are bootstrapped from Debian's archive with ``debootstrap``; any other image is
reported with the reason it cannot be, and nothing is tagged to pretend to be it.

Invariants: a bootstrapped image is tagged under exactly the names asked for (digests dropped:
an engine cannot hold an image under another manifest's digest); a suite's root filesystem is
built once and cached as a tarball; ``trust_host_ca`` copies this host's CA bundle into the image
and points pip at it (for networks that intercept TLS), and says so in the image's labels.
"""

from __future__ import annotations

import re
import shlex
import shutil
import subprocess
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from modularrsi.engines.cpython import build_python_image, find_cpython, python_want
from modularrsi.engines.engine import Engine, EngineError
from modularrsi.engines.refs import SUITES, ImageRef, parse_ref, suite_of

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


def from_images(dockerfile: Path) -> list[str]:
    """Every base image a Dockerfile names (ARG defaults expanded; FROM of an earlier stage skipped)."""
    args: dict[str, str] = {}
    stages: set[str] = set()
    images: list[str] = []
    for line in _instructions(dockerfile.read_text()):
        word, _, rest = line.partition(" ")
        if word.upper() == "ARG" and not images:
            for token in shlex.split(rest):
                key, _, value = token.partition("=")
                args[key] = value
        elif word.upper() == "FROM":
            words = [w for w in rest.split() if not w.startswith("--")]
            image = re.sub(r"\$\{?(\w+)\}?", lambda m: args.get(m.group(1), ""), words[0]) if words else ""
            if len(words) >= 3 and words[1].upper() == "AS":
                stages.add(words[2].lower())
            if image and image.lower() not in stages and image != "scratch":
                images.append(image)
    return images


def _instructions(text: str) -> list[str]:
    lines, buffer = [], ""
    for raw in text.splitlines():
        stripped = raw.strip()
        if not stripped or stripped.startswith("#"):
            continue
        if stripped.endswith("\\"):
            buffer += stripped[:-1] + " "
            continue
        lines.append(buffer + stripped)
        buffer = ""
    return lines + ([buffer] if buffer else [])


@dataclass
class Need:
    """One base image the tasks need, and where it stands on this machine."""

    image: str
    tasks: list[str] = field(default_factory=list)
    present: bool = False
    suite: str | None = None
    cpython: str = ""  # "3.12.1 (/root/.pyenv/versions/3.12.1)" when built from a host CPython
    reason: str = ""

    @property
    def status(self) -> str:
        if self.present:
            return "present"
        if self.cpython:
            return f"missing: build from CPython {self.cpython} on Debian {self.suite}"
        return f"missing: bootstrap from Debian {self.suite}" if self.suite else f"missing: {self.reason}"


def list_needs(task_dirs: list[Path], engine: Engine | None) -> list[Need]:
    """The base images of ``task_dirs``, each with its status on ``engine`` (None: no engine)."""
    needs: dict[str, Need] = {}
    for task in task_dirs:
        dockerfile = task / "environment" / "Dockerfile"
        for image in from_images(dockerfile) if dockerfile.is_file() else []:
            needs.setdefault(image, Need(image)).tasks.append(task.name)
    for need in needs.values():
        ref = parse_ref(need.image)
        need.present = engine is not None and engine.has_image(ref.local_name)
        _plan(need, ref)
    return sorted(needs.values(), key=lambda n: n.image)


def _plan(need: Need, ref: ImageRef) -> None:
    """How ``need`` can be built here (a Debian suite, or a host CPython on one), or why not."""
    need.suite = suite_of(ref)
    want = python_want(ref)
    if need.suite or want is None:
        need.reason = "" if need.suite else why_not_buildable(ref)
        return
    found = find_cpython(want)
    if isinstance(found, str):
        need.reason = f"{ref.repository}:{ref.tag} {found}"
        return
    need.suite, need.cpython = want.suite, f"{found[0]} ({found[1]})"


def bootstrap(names: list[str], engine: Engine, trust_host_ca: bool = False, cache: Path = CACHE) -> dict[str, str]:
    """Build each name from Debian's archive (a Debian suite) or from a host CPython on a Debian
    suite (an official ``python`` tag), and tag it under exactly that name (digest dropped). Returns
    name -> what happened; raises :class:`EngineError` for a name it cannot build."""
    needs = [Need(name) for name in names]
    for need in needs:
        _plan(need, parse_ref(need.image))
    bad = [f"{n.image} ({n.reason})" for n in needs if n.suite is None]
    if bad:
        raise EngineError(f"cannot bootstrap {'; '.join(bad)}")
    done: dict[str, str] = {}
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
    """A cached minbase root filesystem of ``suite`` (debootstrap from Debian's archive)."""
    tarball = cache / f"debian-{suite}-minbase.tar"
    if tarball.is_file():
        return tarball
    if shutil.which("debootstrap") is None:
        raise EngineError("debootstrap is not installed; run scripts/engine-setup.sh as root "
                          "(or apt-get install debootstrap)")
    cache.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix=f"debootstrap-{suite}-", dir=cache) as tmp:
        rootfs = Path(tmp) / "rootfs"
        _check_run(["debootstrap", "--variant=minbase", suite, str(rootfs)], f"debootstrap {suite}")
        partial = tarball.with_suffix(".tmp")
        _check_run(["tar", "-C", str(rootfs), "-cf", str(partial), "."], f"tar {suite}")
        partial.rename(tarball)
    return tarball


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
