"""The container engines on this machine (podman, docker) as far as ModularRSI drives them itself:
finding one that answers, and the few image operations the offline base images need. Trials never
run through this module: Harbor's own ``docker`` and ``podman`` environments run them.

Invariants: every call is one engine CLI invocation with a bounded time; a failure raises
:class:`EngineError` naming the command and the engine's last line of output.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import IO

ENGINES = ("podman", "docker")


class EngineError(RuntimeError):
    """An engine command failed (the message names it and quotes the engine)."""


@dataclass(frozen=True)
class Engine:
    """One container engine's command-line interface."""

    name: str

    def run(self, *args: str, stdin: IO[bytes] | None = None, timeout: float = 600) -> str:
        argv = [self.name, *args]
        try:
            done = subprocess.run(argv, stdin=stdin, capture_output=True, timeout=timeout)
        except (OSError, subprocess.TimeoutExpired) as exc:
            raise EngineError(f"{' '.join(argv[:3])}: {exc}") from None
        if done.returncode != 0:
            last = (done.stderr or done.stdout).decode(errors="replace").strip().splitlines()[-1:] or [""]
            raise EngineError(f"{' '.join(argv[:3])} failed (exit {done.returncode}): {last[0]}")
        return done.stdout.decode(errors="replace")

    def answers(self) -> bool:
        """Installed, and its daemon or storage answers ``info``."""
        if shutil.which(self.name) is None:
            return False
        try:
            self.run("info", timeout=20)
        except EngineError:
            return False
        return True

    def has_image(self, ref: str) -> bool:
        try:
            self.run("image", "inspect", ref, timeout=30)
        except EngineError:
            return False
        return True

    def tag(self, source: str, *targets: str) -> None:
        for target in targets:
            self.run("tag", source, target, timeout=30)

    def import_rootfs(self, tarball: IO[bytes], ref: str, changes: list[str]) -> None:
        """A single-layer image from a root filesystem tarball."""
        flags = [arg for change in changes for arg in ("--change", change)]
        self.run("import", *flags, "-", ref, stdin=tarball)


def compose_on_path() -> None:
    """Put this interpreter's script directory on PATH, where ``pip`` installed podman-compose (a
    dependency): Harbor's podman environment looks the frontend up there by name."""
    scripts = str(Path(sys.executable).parent)
    if scripts not in os.environ.get("PATH", "").split(os.pathsep):
        os.environ["PATH"] = os.pathsep.join([scripts, os.environ.get("PATH", "")])


def find_engine(prefer: str | None = None) -> Engine | None:
    """The engine to use: ``prefer`` if it answers, else the first of :data:`ENGINES` that does."""
    for name in ([prefer] if prefer else []) + [e for e in ENGINES if e != prefer]:
        engine = Engine(name)
        if engine.answers():
            return engine
    return None


def require_engine(prefer: str | None = None) -> Engine:
    engine = find_engine(prefer)
    if engine is None:
        wanted = prefer or "podman or docker"
        raise EngineError(f"no container engine answers here ({wanted}); run scripts/engine-setup.sh as root "
                          "(installs and configures podman) or install docker with the compose v2 plugin")
    return engine
