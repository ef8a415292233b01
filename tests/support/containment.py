"""What an adversarial probe checks on the host after running inside a LocalSandbox."""

from __future__ import annotations

import hashlib
import os
import socket
import threading
import uuid
from dataclasses import dataclass
from pathlib import Path

#: Host directories where no file named after a probe's marker may appear.
WATCHED = ("/etc", "/etc/ssh", "/usr", "/usr/bin", "/usr/local", "/usr/local/bin", "/var", "/var/tmp",
           "/var/lib", "/opt", "/srv", "/root", "/sys/fs/cgroup/pids", "/sys/fs/cgroup/memory")
#: Host files whose content must not change during a probe.
FILES = ("/etc/passwd", "/etc/hosts", "/etc/hostname", "/etc/resolv.conf", "/usr/bin/env")
#: Host device nodes every trial, probe and test must leave as they are (type, device number, inode, owner).
DEVICES = ("/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom", "/dev/tty", "/dev/ptmx")
SYSCTLS = ("/proc/sys/vm/swappiness", "/proc/sys/kernel/hostname", "/proc/sys/net/ipv4/ip_forward")


def marker() -> str:
    return f"probe-{uuid.uuid4().hex[:12]}"


def _read(path: str) -> str:
    try:
        return Path(path).read_text()
    except OSError:
        return ""


def _digest(root: Path) -> str:
    """Names, link targets and contents of everything under ``root`` (never following links)."""
    h = hashlib.sha256()
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames.sort()
        for name in sorted(filenames + [d for d in dirnames if os.path.islink(os.path.join(dirpath, d))]):
            path = os.path.join(dirpath, name)
            h.update(path.encode())
            if os.path.islink(path):
                h.update(os.readlink(path).encode())
            elif os.path.isfile(path):
                h.update(Path(path).read_bytes())
    return h.hexdigest()


def devices() -> dict[str, tuple | None]:
    """What each of :data:`DEVICES` is now: (mode, rdev, inode, uid, gid), or None when it is gone."""
    state: dict[str, tuple | None] = {}
    for path in DEVICES:
        try:
            st = os.lstat(path)
            state[path] = (st.st_mode, st.st_rdev, st.st_ino, st.st_uid, st.st_gid)
        except OSError:
            state[path] = None
    return state


def _hash(path: str) -> str:
    try:
        return hashlib.sha256(Path(path).read_bytes()).hexdigest()
    except OSError:
        return ""


@dataclass(frozen=True)
class HostState:
    """Host files, sysctls and the trial's sibling files, before a probe."""

    files: dict
    sysctls: dict
    siblings: str
    nodes: dict

    @classmethod
    def take(cls, siblings: Path) -> HostState:
        return cls({p: _hash(p) for p in FILES}, {p: _read(p) for p in SYSCTLS}, _digest(siblings), devices())

    def assert_same(self, siblings: Path, name: str = "") -> None:
        """Nothing changed, and no file named ``name`` appeared in a watched host directory."""
        now = HostState.take(siblings)
        assert now.files == self.files, "a host file changed"
        assert now.sysctls == self.sysctls, "a host sysctl changed"
        assert now.nodes == self.nodes, f"a host device node changed: {now.nodes} (before: {self.nodes})"
        assert now.siblings == self.siblings, f"files next to the trial changed ({siblings})"
        if name:
            for path in WATCHED:
                assert not os.path.lexists(os.path.join(path, name)), f"{path}/{name} appeared on the host"


class LoopbackServer:
    """A TCP server on the host's 127.0.0.1 that counts connections."""

    def __init__(self) -> None:
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(16)
        self.port = self.sock.getsockname()[1]
        self.accepted = 0
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            self.accepted += 1
            conn.close()

    def close(self) -> None:
        self.sock.close()


def cgroup_of(pid: int) -> str:
    return _read(f"/proc/{pid}/cgroup")
