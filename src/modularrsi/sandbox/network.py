"""Public network for a LocalSandbox without the host's: slirp4netns in the sandbox's own netns.

The sandbox always has its own network namespace. ``no-network`` leaves it with ``lo`` only;
``public`` adds a ``tap0`` device served by a user-mode network stack (slirp4netns, run by the
orchestrator): outbound TCP/UDP through the host's routes, DNS at 10.0.2.3, and the host's own
loopback unreachable (``--disable-host-loopback``: the gateway 10.0.2.2 does not forward to
127.0.0.1). There is no fallback to the host's network: without slirp4netns the trial is refused.

Invariants: slirp4netns exits when the sandbox stops (its exit pipe closes) or the orchestrator dies.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
from pathlib import Path

from harbor.environments.base import SandboxBuildFailedError

SLIRP = "slirp4netns"
START_TIMEOUT_S = 30.0


def require_slirp() -> None:
    if shutil.which(SLIRP) is None:
        raise SandboxBuildFailedError(
            "LocalSandbox: network_mode 'public' needs slirp4netns (Debian: apt-get install slirp4netns); "
            "it never shares the host's network")


async def _default_route(pid: int) -> None:
    """Wait until the sandbox's namespace has its default route (slirp4netns may say it is ready
    just before it adds it)."""
    for _ in range(int(START_TIMEOUT_S / 0.01)):
        with open(f"/proc/{pid}/net/route") as f:
            if any(line.split()[1:2] == ["00000000"] for line in f.readlines()[1:]):
                return
        await asyncio.sleep(0.01)
    raise SandboxBuildFailedError("LocalSandbox: slirp4netns set up no default route")


class PublicNetwork:
    """One running slirp4netns serving the network namespace of one sandbox."""

    def __init__(self, proc: asyncio.subprocess.Process, exit_fd: int):
        self._proc, self._exit_fd = proc, exit_fd

    @classmethod
    async def start(cls, target_pid: int, log: Path) -> PublicNetwork:
        ready_r, ready_w = os.pipe()
        exit_r, exit_w = os.pipe()
        try:
            with log.open("wb") as errors:
                proc = await asyncio.create_subprocess_exec(
                    SLIRP, "--configure", "--mtu=65520", "--disable-host-loopback", "--enable-sandbox",
                    "--enable-seccomp", f"--ready-fd={ready_w}", f"--exit-fd={exit_r}", str(target_pid), "tap0",
                    pass_fds=(ready_w, exit_r), stdin=asyncio.subprocess.DEVNULL,
                    stdout=asyncio.subprocess.DEVNULL, stderr=errors, start_new_session=True)
        finally:
            os.close(ready_w)
            os.close(exit_r)
        network = cls(proc, exit_w)
        ready = await asyncio.wait_for(asyncio.to_thread(os.read, ready_r, 1), START_TIMEOUT_S)
        os.close(ready_r)
        if ready != b"1":
            await network.stop()
            err = log.read_text(errors="replace").strip()
            raise SandboxBuildFailedError(f"LocalSandbox: slirp4netns failed to start: {err[-300:]}")
        await _default_route(target_pid)
        return network

    async def stop(self) -> None:
        with contextlib.suppress(OSError):
            os.close(self._exit_fd)
        if self._proc.returncode is None:
            try:
                await asyncio.wait_for(self._proc.wait(), 5)
            except TimeoutError:
                with contextlib.suppress(ProcessLookupError):
                    self._proc.kill()
                await self._proc.wait()
