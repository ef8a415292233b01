"""Bubblewrap command lines, built in one place for both sandboxes of the project: the function
runtime's (:mod:`modularrsi.harness.bubblewrap`) and LocalSandbox's (:mod:`modularrsi.sandbox.launcher`).

Each caller says what its file system shows (mount arguments, in order) and what runs inside;
:func:`bwrap_argv` adds the isolation both need: new IPC, PID, network, UTS and cgroup namespaces,
death with the parent, a new session (no terminal to inject keys into) and an empty environment.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Mapping, Sequence

#: Namespaces every sandbox leaves (a LocalSandbox's network is joined to slirp4netns later, from outside).
NAMESPACES = ("--unshare-ipc", "--unshare-pid", "--unshare-net", "--unshare-uts")


def bwrap_argv(mounts: Sequence[str], command: Sequence[str], *, cgroup_required: bool = True,
               hostname: str | None = None, env: Mapping[str, str] | None = None,
               info_fd: int | None = None) -> list[str]:
    """``bwrap`` with ``mounts``, the isolation above and ``command`` to run. ``cgroup_required``:
    fail when a cgroup namespace cannot be made (else go on without one: ``--unshare-cgroup-try``);
    ``env``: the only variables inside; ``info_fd``: where bubblewrap writes its child's pid."""
    argv = [shutil.which("bwrap") or "bwrap", *mounts, *NAMESPACES,
            "--unshare-cgroup" if cgroup_required else "--unshare-cgroup-try", "--die-with-parent",
            "--new-session", "--clearenv"]
    if hostname is not None:
        argv += ["--hostname", hostname]
    for name, value in (env or {}).items():
        argv += ["--setenv", name, value]
    if info_fd is not None:
        argv += ["--info-fd", str(info_fd)]
    return [*argv, "--", *command]


def mirror(path: str, link: str | None = None) -> list[str]:
    """Show host ``path`` as it is, read-only: a symlink (``link``: its target, when already read)
    stays a symlink, anything else is bound."""
    if link is None and os.path.islink(path):
        link = os.readlink(path)
    return ["--symlink", link, path] if link is not None else ["--ro-bind", path, path]


def sealed(path: str) -> list[str]:
    """An empty read-only directory over ``path`` (what was there is hidden)."""
    return ["--tmpfs", path, "--remount-ro", path]
