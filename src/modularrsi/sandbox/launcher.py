"""Starting one LocalSandbox: ``launch.py`` (disk, mount and user namespaces) then bubblewrap.

The orchestrator runs ``launch.py`` inside the sandbox's cgroups, answers its user namespace with
the uid/gid maps (only a process in the parent namespace may map a range of ids), and waits for
bubblewrap's init to report its pid and run the sandbox's payload (``sleep infinity``).

Invariants: the returned process is the sandbox's bubblewrap monitor (killing its process group
ends the sandbox); ``keep`` holds the host pids that must survive a verifier-phase cleanup (the
monitor, the sandbox's init and its payload).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from harbor.environments.base import SandboxBuildFailedError

from modularrsi.sandbox.layout import bwrap_args, own_etc_files
from modularrsi.util.bwrap import bwrap_argv

DEFAULT_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
#: The sandbox's uids and gids 0..UID_COUNT-1 are these host ids.
UID_BASE, UID_COUNT = 1_000_000_000, 65536
LAUNCH = Path(__file__).with_name("launch.py")
#: Where the launcher mounts the sandbox's disk, in its private mount namespace only.
DISK_MOUNT = "/tmp"
#: Seconds a failed start waits for the launcher's error message once its process group is killed.
STDERR_WAIT = 10


@dataclass(frozen=True)
class LaunchPlan:
    """``root``: the sandbox's host directory (holding ``disk.img``); ``writable``: sandbox paths on
    the disk; ``public``: slirp4netns will serve the network; ``hide``: a host folder to hide;
    ``hostname``: the sandbox's host name."""

    root: Path
    writable: list[str]
    public: bool
    hide: str | None
    hostname: str


def sandbox_argv(plan: LaunchPlan, info_fd: int) -> list[str]:
    writable = {p: f"{DISK_MOUNT}/fs/{p.strip('/')}" for p in plan.writable}
    own_etc = {f"/etc/{name}": f"{DISK_MOUNT}/etc/{name}" for name in own_etc_files(plan.public, plan.hostname)
               if name != "empty"}
    mounts = bwrap_args(writable, own_etc, f"{DISK_MOUNT}/etc/empty", plan.hide)
    return bwrap_argv(mounts, ["/bin/sh", "-c", "echo ready; exec sleep infinity"], hostname=plan.hostname,
                      env={"PATH": DEFAULT_PATH}, info_fd=info_fd)


def launch_spec(plan: LaunchPlan, info_fd: int) -> dict:
    return {"image": str(plan.root / "disk.img"), "mountpoint": DISK_MOUNT, "uid_base": UID_BASE,
            "dirs": [f"fs{p}" for p in plan.writable], "argv": sandbox_argv(plan, info_fd),
            "files": {f"etc/{name}": text for name, text in own_etc_files(plan.public, plan.hostname).items()}}


async def launch(plan: LaunchPlan, wrap: Callable[[list[str]], list[str]]
                 ) -> tuple[asyncio.subprocess.Process, int, set[int]]:
    """(bubblewrap's process, the sandbox init's host pid, the pids to keep); SandboxBuildFailedError
    (the launcher's process group killed, the rest of the cgroup left for the caller's stop) when the
    sandbox does not come up."""
    read_fd, write_fd = os.pipe()
    argv = wrap([sys.executable, "-I", "-S", str(LAUNCH), json.dumps(launch_spec(plan, write_fd))])
    try:
        proc = await asyncio.create_subprocess_exec(
            *argv, pass_fds=(write_fd,), stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE, start_new_session=True, env={"PATH": DEFAULT_PATH})
    finally:
        os.close(write_fd)
    try:
        await _map_user_namespace(proc)
        info = await asyncio.to_thread(_read_all, os.dup(read_fd))
        ready = await proc.stdout.readline()  # the init runs only once the sandbox is set up
    except (OSError, ValueError):
        info, ready = "", b""
    finally:
        os.close(read_fd)
    if not info or ready != b"ready\n":
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        # bounded: a process outside the group (the caller's stop kills the cgroup) may hold the pipe open
        err = ""
        with contextlib.suppress(TimeoutError):
            err = (await asyncio.wait_for(proc.stderr.read(), STDERR_WAIT)).decode(errors="replace").strip()
        raise SandboxBuildFailedError(f"LocalSandbox: bubblewrap failed to start: {err or 'no message'}")
    child = int(json.loads(info)["child-pid"])
    return proc, child, {proc.pid, child, *_children(child)}


async def _map_user_namespace(proc: asyncio.subprocess.Process) -> None:
    """Sandbox ids 0..UID_COUNT-1 -> host UID_BASE.. for the launcher's new user namespace."""
    if await proc.stdout.readline() != b"userns\n":
        raise OSError("the launcher did not reach its user namespace")
    for name in ("uid_map", "gid_map"):
        with open(f"/proc/{proc.pid}/{name}", "w") as f:
            f.write(f"0 {UID_BASE} {UID_COUNT}\n")
    proc.stdin.write(b"go\n")
    await proc.stdin.drain()
    proc.stdin.close()


def _children(pid: int) -> list[int]:
    try:
        return [int(p) for p in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]
    except OSError:
        return []


def _read_all(fd: int) -> str:
    chunks = []
    with os.fdopen(fd, "rb") as f:
        while chunk := f.read(4096):
            chunks.append(chunk)
            if b"}" in chunk:
                break
    return b"".join(chunks).decode()
