"""The function runtime: where function code runs — confined, outside the orchestrator's process.

One *zygote* per orchestrating process (:class:`Zygote`, started on first use) runs
:mod:`modularrsi.harness.zygote` under bubblewrap and forks one *worker* per episode. Confinement:

- bubblewrap, started by root so it can bind the interpreter from under ``/root``, with new ipc,
  pid, net, uts (and cgroup) namespaces and no user namespace (nothing inside ever holds a
  capability over one); inside, ``setpriv`` keeps only CAP_SETUID and CAP_SETGID in the bounding set
  (no groups, no_new_privs) before Python starts, and each worker leaves uid 0 for a host uid and
  gid of its own (``zygote.drop_identity``): no capability, and no way to signal, ptrace or read the
  zygote or another episode's worker; ``/proc`` is read-only;
- a filesystem of read-only binds: ``/usr`` (shared libraries), the interpreter's prefix, and
  ``/rt``, a copy of the few modules functions may import (:data:`RUNTIME_FILES`); ``/tmp`` is an
  empty tmpfs no worker can write; no ``/work``, ``/home``, ``/etc``, task or run directory;
- an empty environment, only the loopback interface (no network), ``--die-with-parent``; the
  zygote and its workers are not dumpable (no ptrace, no ``/proc/PID/mem`` between them);
- per worker, rlimits: address space (:data:`MEMORY_MB`), no new processes or threads, few files,
  no core dumps; and a per-call time limit enforced by the orchestrator
  (:class:`modularrsi.harness.session.Session`), which kills a worker that overruns it.
"""

from __future__ import annotations

import atexit
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

HARNESS = Path(__file__).parent
START_TIMEOUT_S = 30.0
MEMORY_MB = 1024
#: Modules copied into the sandbox's /rt: (package it is found in, path inside the package).
RUNTIME_FILES = (("modularrsi", "harness/protocols.py"), ("modularrsi", "harness/resources.py"),
                 ("modularrsi", "harness/wire.py"), ("modularrsi", "harness/worker.py"),
                 ("modularrsi", "harness/zygote.py"),
                 ("modularrsi", "models/base.py"),
                 ("harbor", "agents/terminus_2/terminus_json_plain_parser.py"),
                 ("harbor", "agents/terminus_2/terminus_xml_plain_parser.py"),
                 ("harbor", "agents/terminus_2/templates"))
#: Packages that get an empty ``__init__.py`` in /rt (never the real one: harbor's imports LiteLLM).
RUNTIME_PACKAGES = ("modularrsi", "modularrsi/harness", "modularrsi/models", "harbor", "harbor/agents",
                    "harbor/agents/terminus_2")


class RuntimeUnavailable(RuntimeError):
    """The confined function runtime could not be started on this host."""


def worker_limits(memory_mb: int = MEMORY_MB) -> dict[str, int]:
    return {"RLIMIT_AS": memory_mb << 20, "RLIMIT_NPROC": 0, "RLIMIT_NOFILE": 32, "RLIMIT_CORE": 0,
            "RLIMIT_FSIZE": 0}


def _package_dir(name: str) -> Path:
    import importlib.util

    spec = importlib.util.find_spec(name)
    assert spec and spec.submodule_search_locations
    return Path(list(spec.submodule_search_locations)[0])


def build_root() -> Path:
    """A fresh directory holding what the sandbox's /rt shows (readable by any worker); removed at exit."""
    root = Path(tempfile.mkdtemp(prefix="modularrsi-rt-"))
    atexit.register(shutil.rmtree, root, True)
    for package in RUNTIME_PACKAGES:
        (root / package).mkdir(parents=True, exist_ok=True)
        (root / package / "__init__.py").write_text("")
    for package, rel in RUNTIME_FILES:
        source, target = _package_dir(package) / rel, root / package / rel
        if source.is_dir():
            shutil.copytree(source, target)
        else:
            shutil.copyfile(source, target)
    for path in [root, *root.rglob("*")]:
        path.chmod(0o755 if path.is_dir() else 0o644)
    return root


def bwrap_argv(root: Path, control_fd: int) -> list[str]:
    prefix = Path(sys.base_prefix)
    argv = ["bwrap", "--unshare-ipc", "--unshare-pid", "--unshare-net", "--unshare-uts", "--unshare-cgroup-try",
            "--die-with-parent", "--new-session", "--clearenv", "--ro-bind", "/usr", "/usr"]
    for link in ("lib", "lib64", "bin"):
        if Path(f"/{link}").is_symlink():
            argv += ["--symlink", os.readlink(f"/{link}"), f"/{link}"]
        elif Path(f"/{link}").is_dir():
            argv += ["--ro-bind", f"/{link}", f"/{link}"]
    for parent in reversed(prefix.parents[:-1]):
        argv += ["--perms", "0755", "--dir", str(parent)]
    argv += ["--ro-bind", str(prefix), str(prefix), "--ro-bind", str(root), "/rt", "--proc", "/proc",
             "--remount-ro", "/proc", "--dev", "/dev", "--perms", "0755", "--tmpfs", "/tmp", "--chdir", "/tmp", "--",
             shutil.which("setpriv") or "/usr/bin/setpriv", "--clear-groups", "--inh-caps=-all",
             "--bounding-set=-all,+setuid,+setgid", "--no-new-privs",
             str(prefix / "bin" / f"python{sys.version_info.major}.{sys.version_info.minor}"), "-I", "-S",
             "/rt/modularrsi/harness/zygote.py", str(control_fd)]
    return argv


def _alive(sock: socket.socket) -> bool:
    """The worker at the other end of ``sock`` has not exited (it writes nothing until asked)."""
    try:
        return sock.recv(1, socket.MSG_DONTWAIT | socket.MSG_PEEK) != b""
    except BlockingIOError:
        return True
    except OSError:
        return False


def _spawn_kept(argv: list[str], **popen) -> subprocess.Popen:
    """Start ``argv`` from a thread that lives as long as the process does: ``--die-with-parent`` is
    the parent-death signal, sent when the *thread* that started bwrap ends, and callers may be
    short-lived worker threads (``asyncio.to_thread``)."""
    started: dict = {}
    ready = threading.Event()

    def keeper() -> None:
        try:
            started["proc"] = subprocess.Popen(argv, **popen)
        except BaseException as exc:  # noqa: BLE001 - handed to the caller
            started["error"] = exc
        ready.set()
        if "proc" in started:
            started["proc"].wait()

    threading.Thread(target=keeper, name="modularrsi-zygote", daemon=True).start()
    ready.wait()
    if "error" in started:
        raise started["error"]
    return started["proc"]


class Zygote:
    """The process-wide warm zygote; thread-safe. :meth:`fork` gives a worker per episode."""

    _lock = threading.Lock()
    _current: Zygote | None = None
    _root: Path | None = None

    def __init__(self) -> None:
        if shutil.which("bwrap") is None:
            raise RuntimeUnavailable("bubblewrap (bwrap) is not installed; the function runtime needs it")
        if Zygote._root is None or not Zygote._root.is_dir():
            Zygote._root = build_root()
        started = time.perf_counter()
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        self._log = tempfile.TemporaryFile()  # noqa: SIM115 - lives as long as the zygote
        try:
            self._proc = _spawn_kept(bwrap_argv(Zygote._root, theirs.fileno()), pass_fds=(theirs.fileno(),),
                                     stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=self._log, env={},
                                     start_new_session=True)
        finally:
            theirs.close()
        self._sock, self._owner = ours, os.getpid()
        self._spares: dict[tuple, tuple[socket.socket, int]] = {}
        self._sock.settimeout(START_TIMEOUT_S)
        if self._receive().get("ready") is not True:
            raise RuntimeUnavailable("the function runtime's zygote did not start")
        self.start_s = time.perf_counter() - started

    def _receive(self) -> dict:
        try:
            data = self._sock.recv(1 << 16)
        except OSError as exc:
            data = b""
            reason = str(exc)
        else:
            reason = ""
        if not data:
            self._proc.kill()
            self._proc.wait()
            self._log.seek(0)
            stderr = self._log.read()[-500:].decode(errors="replace")
            raise RuntimeUnavailable(f"the function runtime's zygote exited: {reason or stderr.strip()}")
        reply = json.loads(data)
        if not isinstance(reply, dict):
            raise RuntimeUnavailable("the function runtime's zygote answered nonsense")
        return reply

    def _ask(self, request: dict, fds: list[int]) -> dict:
        socket.send_fds(self._sock, [json.dumps(request).encode()], fds)
        return self._receive()

    @classmethod
    def current(cls) -> Zygote:
        with cls._lock:
            zygote = cls._current
            if zygote is None or zygote._owner != os.getpid() or zygote._proc.poll() is not None:
                cls._current = zygote = Zygote()
            return zygote

    @classmethod
    def fork(cls, episode_sock: socket.socket, limits: dict[str, int]) -> int:
        """A new worker serving ``episode_sock``; its pid (in the sandbox). A zygote that died is
        restarted once."""
        for attempt in (1, 2):
            zygote = cls.current()
            try:
                with cls._lock:
                    reply = zygote._ask({"op": "fork", "limits": limits}, [episode_sock.fileno()])
                break
            except (OSError, RuntimeUnavailable):
                with cls._lock:
                    cls._current = None
                if attempt == 2:
                    raise
        if not isinstance(reply.get("pid"), int):
            raise RuntimeUnavailable(f"no function worker: {reply.get('error', reply)}")
        return reply["pid"]

    @classmethod
    def spare(cls, limits: dict[str, int]) -> tuple[socket.socket, int] | None:
        """A worker forked ahead of time with these ``limits`` (its socket, its pid), or None; either
        way another spare is forked in the background, so an episode rarely waits for a fork."""
        key = tuple(sorted(limits.items()))
        with cls._lock:
            zygote = cls._current
            usable = zygote is not None and zygote._owner == os.getpid() and zygote._proc.poll() is None
            taken = zygote._spares.pop(key, None) if usable else None
        threading.Thread(target=cls._refill, args=(limits, key), name="modularrsi-spare", daemon=True).start()
        if taken is not None and not _alive(taken[0]):
            taken[0].close()
            return None
        return taken

    @classmethod
    def fresh(cls, limits: dict[str, int]) -> tuple[socket.socket, int]:
        """A worker forked now: its socket and its pid."""
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            return ours, cls.fork(theirs, limits)
        except BaseException:
            ours.close()
            raise
        finally:
            theirs.close()

    @classmethod
    def _refill(cls, limits: dict[str, int], key: tuple) -> None:
        zygote = cls._current
        if zygote is None or key in zygote._spares:
            return
        try:
            spare = cls.fresh(limits)
        except (OSError, RuntimeUnavailable):
            return
        with cls._lock:
            keep = cls._current is zygote and key not in zygote._spares
            if keep:
                zygote._spares[key] = spare
        if not keep:
            cls.kill(spare[1])
            spare[0].close()

    @classmethod
    def kill(cls, pid: int) -> None:
        with cls._lock:
            zygote = cls._current
            if zygote is None or zygote._owner != os.getpid():
                return
            try:
                zygote._ask({"op": "kill", "pid": pid}, [])
            except (OSError, RuntimeUnavailable):
                cls._current = None


#: A file's top level gets this much CPU (a loop is stopped by the kernel, however loaded the
#: machine) and this much wall time (a load average of 30 must not fail a good file).
DECLARE_CPU_S = 10
DECLARE_TIMEOUT_S = 60.0


def declare(source: str, timeout_s: float = DECLARE_TIMEOUT_S) -> dict:
    """Run a function file's source in a fresh confined worker and report what it declares:
    ``{"values": {MODULE, ROLE, DESCRIPTION, PARAMETERS as plain data}, "callables": {name: "sync" |
    "async" | "value"}}`` for the contract's callable names, or ``{"error": "Type: message"}``."""
    from modularrsi.harness import wire

    ours, pid = Zygote.fresh({**worker_limits(), "RLIMIT_CPU": DECLARE_CPU_S})
    try:
        ours.settimeout(timeout_s)
        ours.sendall(wire.frame({"id": 1, "op": "declare", "a": [source]}))
        reply = wire.unframe(_receive_frame(ours, wire))
    except TimeoutError:
        return {"error": f"TimeoutError: running the file took longer than {timeout_s:g} s"}
    except (OSError, wire.Malformed) as exc:
        return {"error": f"the function runtime failed: {exc} (a top level over its {DECLARE_CPU_S} s of CPU "
                         "ends its worker)"}
    finally:
        Zygote.kill(pid)
        ours.close()
    return _declaration(reply, wire)


def _receive_frame(sock: socket.socket, wire) -> bytes:
    header = sock.recv(wire.HEADER.size, socket.MSG_WAITALL)
    if len(header) != wire.HEADER.size:
        raise wire.Malformed("the worker exited")
    size = wire.HEADER.unpack(header)[0]
    if size > wire.MAX_MESSAGE:
        raise wire.Malformed("message too large")
    data = sock.recv(size, socket.MSG_WAITALL)
    if len(data) != size:
        raise wire.Malformed("the worker exited")
    return data


def _declaration(reply: dict, wire) -> dict:
    if "err" in reply:
        err = reply["err"] if isinstance(reply["err"], dict) else {}
        return {"error": f"{str(err.get('type'))[:80]}: {str(err.get('msg'))[:500]}"}
    report = reply.get("ok")
    if not isinstance(report, dict) or set(report) - {"values", "callables", "error"}:
        return {"error": "the function runtime answered nonsense"}
    if "error" in report:
        return {"error": str(report["error"])[:1000]}
    values = wire.expect(wire.decode(report.get("values")), dict, "values")
    callables = wire.expect(report.get("callables"), dict, "callables")
    return {"values": {k: v for k, v in values.items() if k in ("MODULE", "ROLE", "DESCRIPTION", "PARAMETERS")},
            "callables": {str(k): str(v) for k, v in callables.items()}}
