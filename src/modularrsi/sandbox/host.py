"""What this host offers a sandbox: its root entries, installed Debian packages and tools."""

from __future__ import annotations

import functools
import os
import re
import shutil
from pathlib import Path

from harbor.environments.base import SandboxBuildFailedError

from modularrsi.sandbox.dockerfile import EnvironmentPlan

#: Top-level host entries never shown inside a sandbox (private, virtual, or host-specific).
HIDDEN = {"proc", "dev", "tmp", "root", "home", "lost+found", "work", "farm", "old_root",
          "mnt", "media", "snap"}
DPKG_STATUS = Path("/var/lib/dpkg/status")


@functools.cache
def host_root_entries() -> tuple[tuple[str, str | None], ...]:
    """``(path, symlink target or None)`` for each top-level host entry a sandbox sees read-only."""
    entries = []
    for name in sorted(os.listdir("/")):
        if name in HIDDEN:
            continue
        path = f"/{name}"
        entries.append((path, os.readlink(path) if os.path.islink(path) else None))
    return tuple(entries)


@functools.cache
def installed_packages() -> frozenset[str]:
    """Debian packages installed on this host (empty when the host has no dpkg database)."""
    try:
        text = DPKG_STATUS.read_text(errors="replace")
    except OSError:
        return frozenset()
    names = set()
    for block in text.split("\n\n"):
        fields = dict(line.split(": ", 1) for line in block.splitlines() if ": " in line and line[0] != " ")
        if "install ok installed" in fields.get("Status", ""):
            names.add(fields["Package"].split(":")[0])
            names.update(p.strip().split(" ")[0] for p in fields.get("Provides", "").split(",") if p)
    return frozenset(names)


def check_host_requirements(plan: EnvironmentPlan, dockerfile: Path, allow_foreign: bool = False) -> None:
    """Refuse, naming the first missing package or tool, when the host cannot play the image; and a base
    of another distribution or release (:func:`foreign_base`) unless ``allow_foreign`` (``--env local``
    chosen explicitly: the caller warns)."""
    installed = installed_packages()
    missing = [p for p in plan.host_packages if installed and p not in installed]
    if missing:
        raise SandboxBuildFailedError(
            f"{dockerfile}: Debian package(s) {', '.join(missing)} not installed on this host; "
            f"run 'apt-get install {' '.join(missing)}' or use --env docker")
    tools = [t for t in plan.host_tools if shutil.which(t) is None]
    if tools:
        raise SandboxBuildFailedError(
            f"{dockerfile}: base image {plan.base} needs {', '.join(tools)}, which this host lacks; "
            "install it or use --env docker")
    _check_base_version(plan.base, dockerfile)
    foreign = foreign_base(plan.base)
    if foreign and not allow_foreign:
        raise SandboxBuildFailedError(f"{dockerfile}: {foreign}: LocalSandbox would replay it on the host's "
                                      "userland, so it needs a container engine (podman or docker)")


#: Official images whose tag names a tool version, and the host binary whose link target names the
#: version a sandbox would run instead (``/usr/bin/python3 -> python3.11``, ``/usr/bin/gcc -> gcc-12``).
VERSIONED_BASES = {"python": ("CPython", "/usr/bin/python3", r"python(\d+\.\d+)"),
                   "gcc": ("GCC", "/usr/bin/gcc", r"gcc-(\d+)")}


def _check_base_version(base: str, dockerfile: Path) -> None:
    """A versioned base (``python:3.12-slim``, ``gcc:13``) plays on the host only at the host's version."""
    name, asked = base_version(base)
    if name not in VERSIONED_BASES:
        return
    tool, binary, _ = VERSIONED_BASES[name]
    have = host_version(name)
    if asked and have and (have == asked or have.startswith(asked + ".") or asked.startswith(have + ".")):
        return
    raise SandboxBuildFailedError(
        f"{dockerfile}: base image {base} asks for {tool} {asked or '(no version named)'}, and this host's "
        f"{Path(binary).name} is {have or 'missing'}; run it with --env auto or podman "
        f"(modularrsi images list names how its image is built, or why it cannot be here)")


def base_version(base: str) -> tuple[str, str]:
    """An image's name and the version its tag starts with ("python:3.12-slim" -> ("python", "3.12");
    "" when the tag names none, as in ``python:latest``)."""
    name, _, tag = base.split("@")[0].rpartition("/")[2].partition(":")
    match = re.match(r"\d+(?:\.\d+){0,2}", tag)
    return name, match[0] if match else ""


@functools.cache
def host_version(name: str) -> str | None:
    """The version of ``name``'s tool a sandbox runs, read from the host binary's link target."""
    _, binary, pattern = VERSIONED_BASES[name]
    match = re.fullmatch(pattern, Path(binary).resolve().name.removeprefix("x86_64-linux-gnu-")
                         .removeprefix("aarch64-linux-gnu-"))
    return match[1] if match else None


def require_tools(tools: list[str]) -> None:
    missing = [t for t in tools if shutil.which(t) is None]
    if missing:
        raise SandboxBuildFailedError(
            f"LocalSandbox needs {', '.join(missing)} on PATH; install bubblewrap, util-linux and e2fsprogs "
            "(Debian: apt-get install bubblewrap util-linux e2fsprogs)")


OS_RELEASE = Path("/etc/os-release")
#: Release codenames the official images' tags use, with the distribution and version they name.
CODENAMES = {"buster": ("debian", "10"), "bullseye": ("debian", "11"), "bookworm": ("debian", "12"),
             "trixie": ("debian", "13"), "forky": ("debian", "14"), "sid": ("debian", "unstable"),
             "bionic": ("ubuntu", "18.04"), "focal": ("ubuntu", "20.04"), "jammy": ("ubuntu", "22.04"),
             "noble": ("ubuntu", "24.04"), "oracular": ("ubuntu", "24.10"), "plucky": ("ubuntu", "25.04")}


@functools.cache
def host_release() -> tuple[str, str]:
    """This host's distribution and release codename (``("debian", "bookworm")``), from /etc/os-release."""
    try:
        fields = dict(line.split("=", 1) for line in OS_RELEASE.read_text().splitlines() if "=" in line)
    except OSError:
        return "", ""
    return fields.get("ID", "").strip('"'), fields.get("VERSION_CODENAME", "").strip('"')


def foreign_base(base: str) -> str | None:
    """Why ``base`` is not this host's distribution and release, or None. The official images that
    LocalSandbox maps are Debian's unless named ``ubuntu`` (or tagged with an Ubuntu codename); a tag
    naming no release (``debian``, ``python:3.12-slim``) is taken as the host's Debian release."""
    host, codename = host_release()
    name, _, tag = base.split("@")[0].rpartition("/")[2].partition(":")
    distribution, release = base_release(name, tag)
    if distribution == host and release in ("", codename):
        return None
    shown = release
    if distribution == "ubuntu":  # Ubuntu is known by its version number
        number = tag.split("-")[0]
        shown = number if re.fullmatch(r"\d+\.\d+", number) else CODENAMES.get(release, ("", ""))[1]
    return f"base image {base} is {distribution.capitalize()} {shown}".rstrip() + \
        f", not this host's {host.capitalize()} {codename}".rstrip()


def base_release(name: str, tag: str) -> tuple[str, str]:
    """The distribution and release codename an official image's name and tag name ("" when unnamed)."""
    distribution, release = ("ubuntu" if name == "ubuntu" else "debian"), ""
    words = tag.split("-")
    for word in words:
        if word in CODENAMES:
            distribution, release = CODENAMES[word][0], word
    if name == "debian" and re.fullmatch(r"\d+(\.\d+)*", words[0]):
        major = words[0].split(".")[0]
        release = next((c for c, (d, v) in CODENAMES.items() if d == "debian" and v == major), words[0])
    return distribution, release
