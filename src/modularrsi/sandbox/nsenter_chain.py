"""Run one command in a sandbox with a fresh ``sh → nsenter → setpriv → env → bash`` chain: the way
LocalSandbox runs commands when its exec server is off or gone.

Invariants: the chain joins the sandbox's cgroups (``wrap``), its user namespace as the sandbox's
root (``nsenter -U`` sets uid and gid 0 inside: an unprivileged host uid) and its cgroup, mount, uts,
ipc, net and pid namespaces, root and working directory (those of ``target_pid``); it drops privileges as ``who``
says, changes to ``cwd`` as that user and runs ``bash -c command`` with exactly ``env``. On timeout
or cancellation the chain's process group is killed before the exception propagates.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
from collections.abc import Callable
from typing import IO

from modularrsi.sandbox.exec_server import Privileges


def setpriv_argv(who: Privileges) -> list[str]:
    if who.uid is None:
        return ["setpriv", "--no-new-privs", "--bounding-set=-all," + ",".join(f"+{c}" for c in who.keep_caps)]
    return ["setpriv", "--no-new-privs", f"--reuid={who.uid}", f"--regid={who.gid}", "--clear-groups",
            "--inh-caps=-all", "--bounding-set=-all"]


async def run_chain(target_pid: int, wrap: Callable[[list[str]], list[str]], command: str, cwd: str,
                    env: dict[str, str], who: Privileges, stdout: IO[bytes], stderr: IO[bytes],
                    timeout_sec: float | None, stdin: IO[bytes] | None = None) -> int:
    """Exit code of ``bash -c command`` (-N when signal N ended it); TimeoutError on timeout."""
    inner = ["nsenter", "-t", str(target_pid), "-U", "-C", "-m", "-u", "-i", "-n", "-p", "-r", "-w",
             "--", *setpriv_argv(who), "--", "env", f"--chdir={cwd}", "bash", "-c", command]
    proc = await asyncio.create_subprocess_exec(
        *wrap(inner), stdin=stdin if stdin is not None else asyncio.subprocess.DEVNULL, stdout=stdout,
        stderr=stderr, env=env, start_new_session=True)
    try:
        await asyncio.wait_for(proc.wait(), timeout=timeout_sec)
    except (TimeoutError, asyncio.CancelledError):
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(proc.pid, signal.SIGKILL)
        await proc.wait()
        raise
    return proc.returncode
