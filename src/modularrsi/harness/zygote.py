"""The function runtime's zygote: started once per orchestrating process by
:mod:`modularrsi.harness.runtime` inside bubblewrap, as root holding only CAP_SETUID and CAP_SETGID
(no_new_privs; read-only filesystem and /proc); never imported by the orchestrator::

    python -I -S /rt/modularrsi/harness/zygote.py CONTROL_FD

It pre-imports what functions may use, makes itself undumpable (no process of the same user may
ptrace it or its workers), then waits on CONTROL_FD (``SOCK_SEQPACKET``, one JSON object per
message) for ``{"op": "fork", "limits": {...}}`` carrying one descriptor (an episode's socket),
forks a worker (:mod:`modularrsi.harness.worker`) that lowers its rlimits, becomes a uid of its own
(no capabilities) and serves that socket,
and answers ``{"pid": P}``; ``{"op": "kill", "pid": P}`` ends worker P and every process it started
(:func:`end_worker`), then reaps it. It exits when CONTROL_FD closes (and, through bubblewrap's
``--die-with-parent``, with the orchestrator); each worker dies with it (``PR_SET_PDEATHSIG``).

Invariants: a worker stays a child of the zygote (a zombie, if it exits by itself) until the
orchestrator ends it, so its pid is never reused before that and a kill never reaches another
episode's worker; the zygote signals only the workers it is asked to end.
"""

from __future__ import annotations

import contextlib
import ctypes
import itertools
import json
import os
import resource
import signal
import socket
import sys
import time

PRELOAD = ("json", "re", "dataclasses", "typing", "collections", "itertools", "functools", "math", "string",
           "textwrap", "difflib", "hashlib", "random", "time", "datetime", "enum", "statistics", "shlex",
           "copy", "operator", "heapq", "bisect", "base64", "html", "unicodedata", "fnmatch", "uuid", "inspect",
           "modularrsi.harness.protocols", "modularrsi.harness.resources", "modularrsi.harness.wire",
           "harbor.agents.terminus_2.terminus_json_plain_parser",
           "harbor.agents.terminus_2.terminus_xml_plain_parser")


def preload() -> None:
    import importlib

    for name in PRELOAD:
        with contextlib.suppress(ImportError):
            importlib.import_module(name)
    from modularrsi.harness.resources import terminus_template

    for template in ("terminus-json-plain.txt", "terminus-xml-plain.txt", "timeout.txt"):
        with contextlib.suppress(OSError):
            terminus_template(template)


def confine_worker(limits: dict) -> None:
    """Lower the rlimits: each ``RLIMIT_*`` to soft = hard, but RLIMIT_CPU's soft limit to
    ``CALL_CPU_S`` when given (the worker re-arms it; see ``runtime.worker_limits``)."""
    for name, value in limits.items():
        if name.startswith("RLIMIT_"):
            soft = min(value, limits.get("CALL_CPU_S", value)) if name == "RLIMIT_CPU" else value
            resource.setrlimit(getattr(resource, name), (soft, value))


#: Each worker runs as a host uid and gid of its own, so no worker can signal, ptrace or read the
#: memory of the zygote (root with CAP_SETUID/CAP_SETGID only) or of another episode's worker.
WORKER_IDS = itertools.count(0)
WORKER_ID_BASE, WORKER_ID_SPAN = 2_000_000, 1_000_000
#: The real and saved uid of the process that kills a worker's uid: one no worker has, so no worker
#: can signal it (the zygote holds no CAP_KILL: it cannot signal a worker that has left uid 0).
KILLER_ID = WORKER_ID_BASE - 1
#: The uid of each worker not yet ended, by pid; and the ended ones not yet reaped.
WORKERS: dict[int, int] = {}
DYING: set[int] = set()
#: How long ending a worker waits for it to be reaped (else it is reaped at a later request).
REAP_WAIT_S = 2.0
PR_SET_PDEATHSIG = 1


def drop_identity(uid: int) -> None:
    """Become ``uid``/``uid`` with no groups; leaving uid 0 clears every capability."""
    os.setgroups([])
    os.setresgid(uid, uid, uid)
    os.setresuid(uid, uid, uid)


def die_with(parent: int) -> None:
    """SIGKILL when the zygote dies (set after :func:`drop_identity`: changing identity clears it)."""
    ctypes.CDLL(None).prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    if os.getppid() != parent:
        os._exit(0)


def fork_worker(control: socket.socket, fd: int, limits: dict) -> int:
    uid, zygote = WORKER_ID_BASE + next(WORKER_IDS) % WORKER_ID_SPAN, os.getpid()
    pid = os.fork()
    if pid:
        os.close(fd)
        WORKERS[pid] = uid
        return pid
    try:
        control.close()
        os.setsid()  # a session and process group of its own
        null = os.open("/dev/null", os.O_RDWR)
        for std in (0, 1, 2):
            os.dup2(null, std)
        confine_worker(limits)
        drop_identity(uid)
        die_with(zygote)
        from modularrsi.harness.worker import serve_episode  # loaded by main(), before any fork

        serve_episode(socket.socket(fileno=fd), limits.get("CALL_CPU_S"))
    finally:
        os._exit(0)


def end_worker(pid: int) -> None:
    """Kill worker ``pid`` and everything it started (every process of its uid), then reap it; a
    pid that is not a live worker is left alone."""
    uid = WORKERS.pop(pid, None)
    if uid is not None:
        # The zygote (uid 0, no CAP_KILL) may signal a worker that has not become ``uid`` yet and is
        # refused once it has; from then on only kill_uid reaches it. In this order, one of them does.
        with contextlib.suppress(PermissionError):
            os.kill(pid, signal.SIGKILL)
        kill_uid(uid)
        DYING.add(pid)
        reap(REAP_WAIT_S)


def kill_uid(uid: int) -> None:
    """SIGKILL every process of ``uid`` in the sandbox, whatever session or process group it is in:
    ``kill(-1)`` from a child whose effective uid is ``uid`` signals all of them at once (one being
    forked meanwhile too); its real and saved uid (:data:`KILLER_ID`) keep the workers from
    signalling it back."""
    killer = os.fork()
    if killer == 0:
        try:
            os.setresuid(KILLER_ID, uid, KILLER_ID)
            os.kill(-1, signal.SIGKILL)
        finally:
            os._exit(0)
    os.waitpid(killer, 0)


def _reaped(pid: int) -> bool:
    try:
        return os.waitpid(pid, os.WNOHANG)[0] != 0
    except ChildProcessError:
        return True


def reap(wait_s: float = 0.0) -> None:
    """Collect the ended workers that have exited, waiting up to ``wait_s`` for all of them."""
    ends = time.monotonic() + wait_s
    while True:
        DYING.difference_update([pid for pid in DYING if _reaped(pid)])
        if not DYING or time.monotonic() >= ends:
            return
        time.sleep(0.001)


def non_dumpable() -> None:
    """No process of this user may ptrace or read the memory of the zygote or a worker."""
    ctypes.CDLL(None).prctl(4, 0, 0, 0, 0)  # PR_SET_DUMPABLE


def answer(control: socket.socket, request: dict, fds: list[int]) -> dict:
    if request["op"] == "fork":
        try:
            return {"pid": fork_worker(control, fds[0], request["limits"])}
        except OSError as exc:
            return {"error": f"fork failed: {exc}"}
    end_worker(int(request["pid"]))
    return {"ok": True}


def main() -> None:
    sys.path[0] = "/rt"  # the sandbox's copy of the allowed modules (set here: importing this file changes nothing)
    import modularrsi.harness.worker  # noqa: F401  (every worker serves with it: loaded once, before forking)

    control = socket.socket(fileno=int(sys.argv[1]))
    preload()
    non_dumpable()
    control.send(json.dumps({"ready": True}).encode())
    while True:
        data, fds, _, _ = socket.recv_fds(control, 1 << 16, 1)
        if not data:
            return
        reply = answer(control, json.loads(data), fds)
        reap()
        control.send(json.dumps(reply).encode())


if __name__ == "__main__":
    main()
