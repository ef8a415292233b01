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
    asked, have = python_asked(plan.base), host_python()
    if asked is not None and not (asked and have and (have == asked or have.startswith(asked + ".")
                                                      or asked.startswith(have + "."))):
        raise SandboxBuildFailedError(
            f"{dockerfile}: base image {plan.base} asks for CPython {asked or '(no version named)'}, and this "
            f"host's python3 is {have or 'missing'}; run it with --env auto or podman "
            f"(modularrsi images bootstrap {plan.base})")


def python_asked(base: str) -> str | None:
    """The CPython version an official ``python`` base names ("3.12", "3.12.7", "3"; "" for none, as
    in ``python:latest``), or None when the base is not the ``python`` image."""
    name, _, tag = base.split("@")[0].rpartition("/")[2].partition(":")
    if name != "python":
        return None
    match = re.match(r"\d+(?:\.\d+){0,2}", tag)
    return match[0] if match else ""


@functools.cache
def host_python() -> str | None:
    """X.Y of the python3 a sandbox runs (the host's /usr/bin/python3, read from its link target)."""
    match = re.fullmatch(r"python(\d+\.\d+)", Path("/usr/bin/python3").resolve().name)
    return match[1] if match else None


def require_tools(tools: list[str]) -> None:
    missing = [t for t in tools if shutil.which(t) is None]
    if missing:
        raise SandboxBuildFailedError(
            f"LocalSandbox needs {', '.join(missing)} on PATH; install bubblewrap, util-linux and e2fsprogs "
            "(Debian: apt-get install bubblewrap util-linux e2fsprogs)")
