"""What a LocalSandbox's file system looks like: the bubblewrap arguments that build it.

Invariants:
- the host's top-level entries are visible read-only, except the private, virtual and host-specific
  ones (:data:`modularrsi.sandbox.host.HIDDEN`) and ``/etc``, ``/var``, ``/run``;
- ``/etc`` is a read-only copy of the host's, without secrets (:data:`ETC_DENIED`, ssh host keys)
  and with the sandbox's own ``hosts``, ``hostname`` (its trial's name) and ``resolv.conf``;
- every writable path (``/tmp``, ``/root``, ``/home``, ``/var``, ``/run``, ``/logs/*``, ``/tests``,
  ``/solution``, ``/installed-agent``, the workdir, extra ``writable`` paths) is a directory on the
  sandbox's own disk image (``DISK/fs/<path>``), so the storage cap covers all of them;
  ``/var/lib/dpkg`` is the host's, read-only;
- a trial directory on a visible host path is hidden with its siblings (an empty read-only tmpfs);
- ``/proc/sys`` and ``/sys`` are read-only (bubblewrap's ``--proc`` and the ``/sys`` bind).
"""

from __future__ import annotations

import os
import posixpath
import re
from pathlib import Path, PurePosixPath

from harbor.environments.base import SandboxBuildFailedError

from modularrsi.sandbox.host import host_root_entries
from modularrsi.util.bwrap import mirror, sealed

#: Top-level entries replaced by private ones.
PRIVATE_TOP = ("/etc", "/var", "/run")
#: Writable paths every sandbox has, besides its workdir.
PRIVATE_DIRS = ("/tmp", "/root", "/home", "/var", "/run", "/tests", "/solution", "/installed-agent",
                "/logs/agent", "/logs/verifier", "/logs/artifacts")
#: /etc entries never shown inside (secrets) or replaced by the sandbox's own.
ETC_DENIED = frozenset({"shadow", "gshadow", "shadow-", "gshadow-", "sudoers", "sudoers.d", "ssh",
                        "hosts", "hostname", "resolv.conf", "security", "subuid", "subgid", "machine-id"})
#: Host paths shown read-only inside the private /var.
VAR_READONLY = ("/var/lib/dpkg",)
SLIRP_DNS = "10.0.2.3"


def hostname_for(trial_name: str) -> str:
    """The sandbox's host name: its trial's name as a DNS label (what ``hostname`` shows inside)."""
    return re.sub(r"[^a-z0-9-]", "-", trial_name.lower())[-63:].strip("-") or "sandbox"


def own_etc_files(public_network: bool, hostname: str) -> dict[str, str]:
    """The sandbox's own /etc files: name -> text (written read-only on its disk by the launcher)."""
    return {"empty": "",
            "hosts": f"127.0.0.1\tlocalhost\n::1\tlocalhost\n127.0.1.1\t{hostname}\n",
            "hostname": f"{hostname}\n",
            "resolv.conf": f"nameserver {SLIRP_DNS}\n" if public_network else "",
            "machine-id": "0" * 32 + "\n"}


def etc_args(own: dict[str, str], empty: str) -> list[str]:
    """The host's /etc read-only with each denied entry covered (files by ``empty``, directories by
    an empty read-only tmpfs; ssh keeps its non-key files) and the sandbox's own files over theirs.
    Falls back to one bind per allowed entry when a denied entry is a symlink (it cannot be covered)."""
    denied = [f"/etc/{name}" for name in sorted(ETC_DENIED) if os.path.lexists(f"/etc/{name}")]
    if any(os.path.islink(path) for path in denied):
        return _etc_entry_by_entry(own)
    argv = ["--ro-bind", "/etc", "/etc"]
    for path in denied:
        if path in own:
            continue
        if os.path.isdir(path):
            argv += ["--tmpfs", path, *_ssh_config(path), "--remount-ro", path]  # sealed, ssh's config kept
        else:
            argv += ["--ro-bind", empty, path]
    for target, source in sorted(own.items()):
        argv += ["--ro-bind", source, target]
    return argv


def _ssh_config(path: str) -> list[str]:
    if path != "/etc/ssh":
        return []
    return [arg for name in sorted(os.listdir(path)) if not name.startswith("ssh_host_")
            for arg in mirror(f"{path}/{name}")]


def _etc_entry_by_entry(own: dict[str, str]) -> list[str]:
    argv = ["--dir", "/etc"]
    for name in sorted(os.listdir("/etc")):
        if name not in ETC_DENIED:
            argv += mirror(f"/etc/{name}")
    if os.path.isdir("/etc/ssh"):
        argv += ["--dir", "/etc/ssh", *_ssh_config("/etc/ssh")]
    for target, source in sorted(own.items()):
        argv += ["--ro-bind", source, target]
    return argv


def hidden_trials_dir(trial_dir: Path) -> str | None:
    """The folder holding this trial and its siblings, when it would be visible inside."""
    parent = trial_dir.resolve().parent
    parts = PurePosixPath(parent).parts
    if len(parts) < 2:
        return None
    visible = {entry for entry, link in host_root_entries() if link is None} - set(PRIVATE_TOP)
    return str(parent) if f"/{parts[1]}" in visible else None


def bwrap_args(writable: dict[str, str], own_etc: dict[str, str], empty: str, hide: str | None) -> list[str]:
    """Mount arguments: host root entries, /etc (``own_etc``: sandbox path -> source path), writable
    dirs (sandbox path -> source path), /var read-only parts, the hidden trials folder."""
    argv: list[str] = []
    for entry, link in host_root_entries():
        if entry in writable or entry in PRIVATE_TOP:
            continue
        argv += mirror(entry, link or None)
    argv += ["--dev", "/dev", "--proc", "/proc", "--perms", "0755", "--dir", "/logs", *etc_args(own_etc, empty)]
    for target, source in sorted(writable.items(), key=lambda kv: len(kv[0])):
        argv += ["--bind", source, target]
    for path in VAR_READONLY:
        if os.path.isdir(path):
            argv += ["--ro-bind", path, path]
    if hide is not None:
        argv += sealed(hide)
    return [*argv, "--remount-ro", "/"]


def check_workdir(workdir: str, dockerfile: Path) -> None:
    """The workdir becomes a private bind; bwrap can create its mount point only off the host root."""
    parts = PurePosixPath(workdir).parts
    top = "/" + parts[1] if len(parts) > 1 else "/"
    hosted = {entry for entry, _ in host_root_entries()}
    creatable = len(parts) == 2 or top not in hosted or os.path.isdir(workdir)
    if top == "/" or (top in hosted and top not in PRIVATE_DIRS and not creatable):
        raise SandboxBuildFailedError(
            f"{dockerfile}: WORKDIR {workdir} lies inside the host's read-only {top}; "
            "use a fresh top-level directory such as /app")


def sandbox_path(path: str, workdir: str) -> str:
    """``path`` made absolute (relative to ``workdir``) with ``..`` resolved lexically."""
    target = posixpath.normpath(path if path.startswith("/") else f"{workdir}/{path}")
    return "/" + target.lstrip("/")  # normpath keeps a leading "//"


def writable_target(path: str, workdir: str, writable: list[str]) -> str:
    """:func:`sandbox_path` of ``path``; PermissionError when it is not under a writable path."""
    target = sandbox_path(path, workdir)
    if not any(target == p or target.startswith(p.rstrip("/") + "/") for p in writable):
        raise PermissionError(f"LocalSandbox: {path} is outside the writable paths ({', '.join(writable)}); "
                              "add it with --ek writable=[...]")
    return target
