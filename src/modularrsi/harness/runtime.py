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
  ``/rt``, a copy of the few modules functions may import (``bubblewrap.RUNTIME_FILES``); ``/tmp`` is an
  empty tmpfs no worker can write; no ``/work``, ``/home``, ``/etc``, task or run directory;
- an empty environment, only the loopback interface (no network), ``--die-with-parent``; the
  zygote and its workers are not dumpable (no ptrace, no ``/proc/PID/mem`` between them);
- per worker, rlimits (:func:`worker_limits`): address space (:data:`MEMORY_MB`), no new processes
  or threads, few files, no core dumps, CPU time (:data:`CALL_CPU_MARGIN_S`); and a per-call time
  limit enforced by the orchestrator (:class:`modularrsi.harness.session.Session`), which kills a
  worker that overruns it and, however an episode ends, its worker then: the zygote kills every
  process of the worker's uid and reaps the worker (``zygote.end_worker``).
"""

from __future__ import annotations

import json
import math
import os
import shutil
import socket
import subprocess
import tempfile
import threading
import time
from pathlib import Path
from typing import NamedTuple

from modularrsi.harness.bubblewrap import build_root, spawn_kept, zygote_argv

HARNESS = Path(__file__).parent
START_TIMEOUT_S = 30.0
MEMORY_MB = 1024
#: A worker's CPU time is the second wall behind the orchestrator's kill (which comes once a call
#: has computed for its time limit, ``call_s``, of wall time): RLIMIT_CPU's soft limit, re-armed at
#: every message the worker receives, allows ``call_s`` + this many CPU seconds from then (past it,
#: SIGXCPU ends the worker), so a worker whose kill is lost stops by itself.
CALL_CPU_MARGIN_S = 10
#: RLIMIT_CPU's hard limit, in those per-call allowances over a worker's whole life (SIGKILL, which
#: no function can catch, and a limit no function can raise).
WORKER_CPU_CALLS = 100
#: A file's top level gets this much CPU (a loop is stopped by the kernel, however loaded the
#: machine) and this much wall time (a load average of 30 must not fail a good file).
DECLARE_CPU_S = 10
DECLARE_TIMEOUT_S = 60.0


class RuntimeUnavailable(RuntimeError):
    """The confined function runtime could not be started on this host."""


def worker_limits(memory_mb: int = MEMORY_MB, call_s: float | None = None) -> dict[str, int]:
    """A worker's rlimits (each ``RLIMIT_*`` soft = hard) for calls of at most ``call_s`` seconds,
    whose soft CPU limit ``CALL_CPU_S`` it re-arms at every message; None: a file's top level, with
    :data:`DECLARE_CPU_S` of CPU in all."""
    limits = {"RLIMIT_AS": memory_mb << 20, "RLIMIT_NPROC": 0, "RLIMIT_NOFILE": 32, "RLIMIT_CORE": 0,
              "RLIMIT_FSIZE": 0, "RLIMIT_CPU": DECLARE_CPU_S}
    if call_s is not None:
        per_call = math.ceil(call_s) + CALL_CPU_MARGIN_S
        limits |= {"CALL_CPU_S": per_call, "RLIMIT_CPU": per_call * WORKER_CPU_CALLS}
    return limits


def _alive(sock: socket.socket) -> bool:
    """The worker at the other end of ``sock`` has not exited (it writes nothing until asked)."""
    try:
        return sock.recv(1, socket.MSG_DONTWAIT | socket.MSG_PEEK) != b""
    except BlockingIOError:
        return True
    except OSError:
        return False


class Worker(NamedTuple):
    """A forked worker: the orchestrator's end of its socket, its pid in the sandbox, its zygote."""

    sock: socket.socket
    pid: int
    zygote: Zygote


class Zygote:
    """The process-wide warm zygote; thread-safe. :meth:`fresh` and :meth:`spare` give a worker per
    episode, :meth:`kill` ends it and everything it started."""

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
            self._proc = spawn_kept(zygote_argv(Zygote._root, theirs.fileno()), pass_fds=(theirs.fileno(),),
                                     stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=self._log, env={},
                                     start_new_session=True)
        finally:
            theirs.close()
        self._sock, self._owner = ours, os.getpid()
        self._spares: dict[tuple, Worker] = {}
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
    def fork(cls, episode_sock: socket.socket, limits: dict[str, int]) -> tuple[Zygote, int]:
        """A new worker serving ``episode_sock``: its zygote and its pid (in the sandbox). A zygote
        that died is restarted once."""
        for attempt in (1, 2):
            zygote = cls.current()
            try:
                with cls._lock:
                    reply = zygote._ask({"op": "fork", "limits": limits}, [episode_sock.fileno()])
                break
            except (OSError, RuntimeUnavailable):
                with cls._lock:
                    cls._discard(zygote)
                if attempt == 2:
                    raise
        if not isinstance(reply.get("pid"), int):
            raise RuntimeUnavailable(f"no function worker: {reply.get('error', reply)}")
        return zygote, reply["pid"]

    @classmethod
    def spare(cls, limits: dict[str, int]) -> Worker | None:
        """A worker forked ahead of time with these ``limits``, or None; either way another spare is
        forked in the background, so an episode rarely waits for a fork."""
        key = tuple(sorted(limits.items()))
        with cls._lock:
            zygote = cls._current
            usable = zygote is not None and zygote._owner == os.getpid() and zygote._proc.poll() is None
            taken = zygote._spares.pop(key, None) if usable else None
        threading.Thread(target=cls._refill, args=(limits, key), name="modularrsi-spare", daemon=True).start()
        if taken is not None and not _alive(taken.sock):
            cls.kill(taken)
            taken.sock.close()
            return None
        return taken

    @classmethod
    def fresh(cls, limits: dict[str, int]) -> Worker:
        """A worker forked now."""
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            zygote, pid = cls.fork(theirs, limits)
            return Worker(ours, pid, zygote)
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
            keep = cls._current is spare.zygote and key not in spare.zygote._spares
            if keep:
                spare.zygote._spares[key] = spare
        if not keep:
            cls.kill(spare)
            spare.sock.close()

    @classmethod
    def kill(cls, worker: Worker) -> None:
        """End ``worker`` and every process it started. Only its own zygote is asked (a pid means
        nothing to another); a zygote no longer in use has ended, and its workers with it."""
        zygote = worker.zygote
        with cls._lock:
            if zygote is not cls._current or zygote._owner != os.getpid():
                return
            try:
                zygote._ask({"op": "kill", "pid": worker.pid}, [])
            except (OSError, RuntimeUnavailable):
                cls._discard(zygote)

    @classmethod
    def _discard(cls, zygote: Zygote) -> None:
        """Stop using ``zygote`` and end it: its sandbox, and every worker in it, dies with it."""
        if cls._current is zygote:
            cls._current = None
        zygote._proc.kill()


def declare(source: str, timeout_s: float = DECLARE_TIMEOUT_S) -> dict:
    """Run a function file's source in a fresh confined worker and report what it declares:
    ``{"values": {MODULE, ROLE, DESCRIPTION, PARAMETERS as plain data}, "callables": {name: "sync" |
    "async" | "value"}}`` for the contract's callable names, or ``{"error": "Type: message"}``."""
    from modularrsi.harness import wire

    worker = Zygote.fresh(worker_limits())
    ours = worker.sock
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
        Zygote.kill(worker)
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
