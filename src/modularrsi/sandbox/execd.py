"""execd: the exec servers of LocalSandbox. A standalone program (stdlib only), never imported.

    python -I -S execd.py SOCKET_FD

One execd per orchestrating process is the *spawner*: started once, it waits on SOCKET_FD (a
``SOCK_SEQPACKET`` socket; one ``marshal``-encoded dict per message, both ends run the same
interpreter) for ``{"op": "spawn"}`` messages carrying two fds (the new server's socket, its log),
forks a *server* for one sandbox and answers ``{"pid": PID}``. Forking a warm interpreter costs a
millisecond; starting one costs tens, once per trial.

A server first waits for ``{"op": "enter", "pid": P, "cgroup_procs": [...], "rlimits": {...}}``: it
writes its pid into each ``cgroup.procs`` file and sets the rlimits (so it and every command are
charged to the sandbox), joins P's user namespace, then its cgroup, ipc, uts, net and mount
namespaces, takes P's root and working directory, sets the pid namespace of its future children to
P's and becomes the sandbox's root (uid 0 inside, an unprivileged uid on the host). Then it serves:

- ``{"op": "run", "id": N}`` carrying three or four fds (a file holding the request, the stdout
  file, the stderr file, optionally the stdin file; else stdin is /dev/null): one fork; the child
  starts a new session inside the sandbox's pid namespace,
  drops privileges as the request says (no_new_privs, capability bounding set, for another user
  also groups, gid, uid and inheritable capabilities), changes to ``cwd`` as that user and execs
  ``bash -c COMMAND`` with exactly the request's environment;
- ``{"op": "kill", "id": N}``: SIGKILL the process group (the session) of command N;
- the server answers ``{"ready": true}`` once inside the namespaces, ``{"id": N, "rc": R}`` when
  command N ends (R = -signal when a signal ended it) and ``{"id": N, "error": "..."}`` when it could
  not fork (e.g. the sandbox's process limit is reached).

Invariants: a server stays outside the sandbox's pid namespace, so nothing inside can see or signal
it; commands never inherit its descriptors; the spawner and each server exit when their socket
closes; the spawner reaps its servers, each server its commands.
"""

from __future__ import annotations

import _signal
import _socket
import ctypes
import marshal
import os
import resource
import select
import sys

NAMESPACES = ("user", "cgroup", "ipc", "uts", "net", "pid", "mnt")  # the order nsenter uses
PR_CAPBSET_DROP, PR_SET_NO_NEW_PRIVS = 24, 38
CAP_VERSION_3 = 0x20080522
#: Linux capability numbers by name (capability.h).
CAPS = {name: number for number, name in enumerate((
    "chown", "dac_override", "dac_read_search", "fowner", "fsetid", "kill", "setgid", "setuid", "setpcap",
    "linux_immutable", "net_bind_service", "net_broadcast", "net_admin", "net_raw", "ipc_lock", "ipc_owner",
    "sys_module", "sys_rawio", "sys_chroot", "sys_ptrace", "sys_pacct", "sys_admin", "sys_boot", "sys_nice",
    "sys_resource", "sys_time", "sys_tty_config", "mknod", "lease", "audit_write", "audit_control", "setfcap",
    "mac_override", "mac_admin", "syslog", "wake_alarm", "block_suspend", "audit_read", "perfmon", "bpf",
    "checkpoint_restore"))}


class _CapHeader(ctypes.Structure):
    _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]


class _CapData(ctypes.Structure):
    _fields_ = [("effective", ctypes.c_uint32), ("permitted", ctypes.c_uint32), ("inheritable", ctypes.c_uint32)]


LIBC = ctypes.CDLL(None, use_errno=True)


def _check(result: int, what: str) -> None:
    if result != 0:
        err = ctypes.get_errno()
        raise OSError(err, f"{what}: {os.strerror(err)}")


def drop_privileges(request: dict, last_cap: int) -> None:
    """What ``setpriv --no-new-privs --bounding-set=...`` (and for a user ``--reuid --regid
    --clear-groups --inh-caps=-all``) does."""
    _check(LIBC.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), "no_new_privs")
    keep = {CAPS[name] for name in request["keep_caps"]}
    for cap in range(last_cap + 1):
        if cap not in keep:
            _check(LIBC.prctl(PR_CAPBSET_DROP, cap, 0, 0, 0), f"drop capability {cap}")
    if request["uid"] is None:
        return
    header, data = _CapHeader(CAP_VERSION_3, 0), (_CapData * 2)()
    _check(LIBC.capget(ctypes.byref(header), data), "capget")
    data[0].inheritable = data[1].inheritable = 0
    _check(LIBC.capset(ctypes.byref(header), data), "capset")
    os.setgroups([])
    os.setresgid(request["gid"], request["gid"], request["gid"])
    os.setresuid(request["uid"], request["uid"], request["uid"])


def run_child(fds: list[int], last_cap: int) -> None:
    """In the forked child: become the command. Never returns."""
    request_fd, out_fd, err_fd = fds[:3]
    try:
        for ignored_by_python in (_signal.SIGPIPE, _signal.SIGXFSZ):
            _signal.signal(ignored_by_python, _signal.SIG_DFL)
        os.setsid()
        os.lseek(request_fd, 0, os.SEEK_SET)
        chunks = []
        while chunk := os.read(request_fd, 1 << 16):
            chunks.append(chunk)
        request = marshal.loads(b"".join(chunks))
        os.dup2(fds[3] if len(fds) > 3 else os.open("/dev/null", os.O_RDWR), 0)
        os.dup2(out_fd, 1)
        os.dup2(err_fd, 2)
        os.closerange(3, os.sysconf("SC_OPEN_MAX"))
        drop_privileges(request, last_cap)
        try:
            os.chdir(request["cwd"])
        except OSError as exc:
            os.write(2, f"env: cannot change directory to '{request['cwd']}': {exc.strerror}\n".encode())
            os._exit(125)
        exec_bash(request["command"], request["env"])
    except BaseException as exc:  # noqa: BLE001 - the child must never return into the server loop
        try:
            os.write(2, f"execd: {exc}\n".encode())
        finally:
            os._exit(127 if isinstance(exc, FileNotFoundError) else 126)


def exec_bash(command: str, env: dict[str, str]) -> None:
    """``execvpe("bash", ...)`` searching the command's own PATH, as ``env`` does."""
    error: OSError = FileNotFoundError(2, "bash: No such file or directory")
    for directory in env.get("PATH", os.defpath).split(":"):
        try:
            os.execve(os.path.join(directory or ".", "bash"), ["bash", "-c", command], env)
        except (FileNotFoundError, NotADirectoryError):
            continue
        except OSError as exc:
            error = exc
    raise error


def recv_with_fds(sock: _socket.socket, max_fds: int) -> tuple[bytes, list[int]]:
    """One message and the descriptors that came with it."""
    fds: list[int] = []
    data, ancillary, _, _ = sock.recvmsg(1 << 16, _socket.CMSG_SPACE(max_fds * 4))
    for level, kind, payload in ancillary:
        if level == _socket.SOL_SOCKET and kind == _socket.SCM_RIGHTS:
            fds += [int.from_bytes(payload[i:i + 4], sys.byteorder, signed=True)
                    for i in range(0, len(payload) - len(payload) % 4, 4)]
    return data, fds


def enter(target: int) -> None:
    """Join the sandbox's namespaces (user first; pid: for children only), root and working directory,
    and become the sandbox's root (an unprivileged host uid, all capabilities inside only)."""
    fds = {name: os.open(f"/proc/{target}/ns/{name}", os.O_RDONLY) for name in NAMESPACES}
    root = os.open(f"/proc/{target}/root", os.O_RDONLY | os.O_DIRECTORY)
    cwd = os.open(f"/proc/{target}/cwd", os.O_RDONLY | os.O_DIRECTORY)
    for name in NAMESPACES:
        os.setns(fds[name], 0)
        os.close(fds[name])
    os.fchdir(root)
    os.chroot(".")
    os.fchdir(cwd)
    os.close(root)
    os.close(cwd)
    os.setgroups([])
    os.setresgid(0, 0, 0)
    os.setresuid(0, 0, 0)


class Server:
    def __init__(self, sock: _socket.socket, last_cap: int):
        self.sock, self.last_cap = sock, last_cap
        self.poller = select.poll()
        self.poller.register(sock, select.POLLIN)
        self.by_pidfd: dict[int, tuple[int, int]] = {}  # pidfd -> (id, pid)
        self.pids: dict[int, int] = {}  # id -> pid

    def send(self, message: dict) -> None:
        self.sock.send(marshal.dumps(message))

    def serve(self) -> None:
        self.send({"ready": True})
        while True:
            for fd, _ in self.poller.poll():
                if fd == self.sock.fileno():
                    if not self.receive():
                        return
                else:
                    self.reap(fd)

    def receive(self) -> bool:
        try:
            data, fds = recv_with_fds(self.sock, 4)
        except ConnectionError:
            return False
        if not data:
            return False
        message = marshal.loads(data)
        if message["op"] == "run":
            self.start(message["id"], fds)
        elif message["op"] == "kill":
            self.kill(message["id"])
        for fd in fds:
            os.close(fd)
        return True

    def start(self, ident: int, fds: list[int]) -> None:
        try:
            pid = os.fork()
        except OSError as exc:
            self.send({"id": ident, "error": f"fork failed: {exc.strerror}"})
            return
        if pid == 0:
            run_child(fds, self.last_cap)
        pidfd = os.pidfd_open(pid)
        self.by_pidfd[pidfd] = (ident, pid)
        self.pids[ident] = pid
        self.poller.register(pidfd, select.POLLIN)

    def kill(self, ident: int) -> None:
        pid = self.pids.get(ident)
        if pid is None:
            return
        for signal_group in (os.killpg, os.kill):
            try:  # noqa: SIM105 - contextlib would cost start-up time
                signal_group(pid, _signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass

    def reap(self, pidfd: int) -> None:
        ident, pid = self.by_pidfd.pop(pidfd)
        self.poller.unregister(pidfd)
        os.close(pidfd)
        _, status = os.waitpid(pid, 0)
        del self.pids[ident]
        self.send({"id": ident, "rc": os.waitstatus_to_exitcode(status)})


def join(message: dict) -> None:
    """Join the sandbox's cgroups and rlimits, then its namespaces."""
    for procs in message["cgroup_procs"]:
        with open(procs, "w") as f:
            f.write("0")
    for name, value in message["rlimits"].items():
        resource.setrlimit(getattr(resource, name), (value, value))
    enter(int(message["pid"]))


def run_server(sock: _socket.socket, last_cap: int) -> None:
    data = sock.recv(1 << 16)
    if not data:
        return
    try:
        join(marshal.loads(data))
    except OSError as exc:
        sock.send(marshal.dumps({"fatal": f"cannot enter the sandbox: {exc}"}))
        return
    Server(sock, last_cap).serve()


def spawn(data: bytes, fds: list[int], last_cap: int, spawner: _socket.socket) -> int:
    """Fork one server; in the child, never returns."""
    server_fd, log_fd = fds
    pid = os.fork()
    if pid:
        return pid
    try:
        spawner.close()
        _signal.signal(_signal.SIGCHLD, _signal.SIG_DFL)  # a server reaps its own commands
        os.setsid()
        os.dup2(log_fd, 2)
        os.close(log_fd)
        run_server(_socket.socket(fileno=server_fd), last_cap)
    finally:
        os._exit(0)


def main() -> None:
    spawner = _socket.socket(fileno=int(sys.argv[1]))
    os.set_inheritable(spawner.fileno(), False)
    with open("/proc/sys/kernel/cap_last_cap") as f:
        last_cap = int(f.read())
    _signal.signal(_signal.SIGCHLD, _signal.SIG_IGN)  # servers are reaped as they exit
    spawner.send(marshal.dumps({"ready": True}))
    while True:
        data, fds = recv_with_fds(spawner, 2)
        if not data:
            return
        try:
            reply = {"pid": spawn(data, fds, last_cap, spawner)}
        except OSError as exc:
            reply = {"error": f"fork failed: {exc.strerror}"}
        for fd in fds:
            os.close(fd)
        spawner.send(marshal.dumps(reply))


if __name__ == "__main__":
    main()
