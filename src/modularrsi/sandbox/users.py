"""Who a sandbox command runs as, and the environment it starts with.

Invariants: the sandbox's root keeps only :data:`ROOT_CAPS` (Docker's default set minus raw sockets,
mknod and chroot); any other user is a host account whose uid and gid fall inside the sandbox's id
range (``< UID_COUNT``) and keeps no capability; a command's environment is built from nothing but
the defaults below, the task's ENV and what the caller passes (never the orchestrator's).
"""

from __future__ import annotations

import pwd

from modularrsi.sandbox.exec_server import Privileges
from modularrsi.sandbox.launcher import DEFAULT_PATH, UID_COUNT

#: Docker's default capability set, minus raw sockets, mknod and chroot.
ROOT_CAPS = ("chown", "dac_override", "fowner", "fsetid", "kill", "setgid", "setuid", "setpcap", "net_bind_service",
             "audit_write", "setfcap")
ROOT = Privileges(None, None, ROOT_CAPS)
#: The environment of a transfer command (run as the sandbox's root, outside any task setting).
TRANSFER_ENV = {"PATH": DEFAULT_PATH, "HOME": "/root", "LANG": "C.UTF-8"}


def privileges(user: str | int | None) -> tuple[Privileges, dict[str, str]]:
    """``user`` (a name or uid; None or 0 is root) as privileges and the variables naming it."""
    if user in (None, "root", 0, "0"):
        return ROOT, {}
    try:
        entry = pwd.getpwuid(int(user)) if str(user).isdigit() else pwd.getpwnam(str(user))
    except KeyError:
        raise ValueError(f"LocalSandbox: user '{user}' does not exist on this host") from None
    if entry.pw_uid >= UID_COUNT or entry.pw_gid >= UID_COUNT:
        raise ValueError(f"LocalSandbox: user '{user}' has uid/gid >= {UID_COUNT}, outside the sandbox's ids")
    return Privileges(entry.pw_uid, entry.pw_gid, ()), {"USER": entry.pw_name}


def command_env(hostname: str, task_env: dict[str, str], extra: dict[str, str] | None) -> dict[str, str]:
    """A command's environment: the defaults, then the task's ENV, then ``extra``."""
    base = {**TRANSFER_ENV, "TERM": "xterm-256color", "USER": "root", "HOSTNAME": hostname}
    return {**base, **task_env, **(extra or {})}
