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


def check_host_requirements(plan: EnvironmentPlan, dockerfile: Path) -> None:
    """Refuse, naming the first missing package or tool, when the host cannot play the image."""
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
