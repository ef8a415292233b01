"""The function runtime's zygote: started once per orchestrating process by
:mod:`modularrsi.harness.runtime` inside bubblewrap, as root holding only CAP_SETUID and CAP_SETGID
(no_new_privs; read-only filesystem and /proc); never imported by the orchestrator::

    python -I -S /rt/modularrsi/harness/zygote.py CONTROL_FD

It pre-imports what functions may use, makes itself undumpable (no process of the same user may
ptrace it or its workers), then waits on CONTROL_FD (``SOCK_SEQPACKET``, one JSON object per
message) for ``{"op": "fork", "limits": {...}}`` carrying one descriptor (an episode's socket),
forks a worker (:mod:`modularrsi.harness.worker`) that lowers its rlimits, becomes a uid of its own
(no capabilities) and serves that socket,
and answers ``{"pid": P}``; ``{"op": "kill", "pid": P}`` ends worker P. It exits when CONTROL_FD
closes (and, through bubblewrap's ``--die-with-parent``, with the orchestrator).
"""

from __future__ import annotations

import contextlib
import itertools
import json
import os
import signal
import socket
import sys

sys.path[0] = "/rt"  # the sandbox's copy of the allowed modules, not this script's directory
PRELOAD = ("json", "re", "dataclasses", "typing", "collections", "itertools", "functools", "math", "string",
           "textwrap", "difflib", "hashlib", "random", "time", "datetime", "enum", "statistics", "shlex",
           "copy", "operator", "heapq", "bisect", "base64", "html", "unicodedata", "fnmatch", "uuid", "inspect",
           "modularrsi.harness.protocols", "modularrsi.harness.resources", "modularrsi.harness.wire",
           "harbor.agents.terminus_2.terminus_json_plain_parser",
           "harbor.agents.terminus_2.terminus_xml_plain_parser")

from modularrsi.harness.worker import serve_episode  # noqa: E402


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
    import resource

    for name, value in limits.items():
        resource.setrlimit(getattr(resource, name), (value, value))


#: Each worker runs as a host uid and gid of its own, so no worker can signal, ptrace or read the
#: memory of the zygote (root with CAP_SETUID/CAP_SETGID only) or of another episode's worker.
WORKER_IDS = itertools.count(0)
WORKER_ID_BASE, WORKER_ID_SPAN = 2_000_000, 1_000_000


def drop_identity(uid: int) -> None:
    """Become ``uid``/``uid`` with no groups; leaving uid 0 clears every capability."""
    os.setgroups([])
    os.setresgid(uid, uid, uid)
    os.setresuid(uid, uid, uid)


def fork_worker(control: socket.socket, fd: int, limits: dict) -> int:
    uid = WORKER_ID_BASE + next(WORKER_IDS) % WORKER_ID_SPAN
    pid = os.fork()
    if pid:
        os.close(fd)
        return pid
    try:
        control.close()
        os.setsid()
        null = os.open("/dev/null", os.O_RDWR)
        for std in (0, 1, 2):
            os.dup2(null, std)
        confine_worker(limits)
        drop_identity(uid)
        serve_episode(socket.socket(fileno=fd))
    finally:
        os._exit(0)


def non_dumpable() -> None:
    """No process of this user may ptrace or read the memory of the zygote or a worker."""
    import ctypes

    ctypes.CDLL(None).prctl(4, 0, 0, 0, 0)  # PR_SET_DUMPABLE


def main() -> None:
    control = socket.socket(fileno=int(sys.argv[1]))
    preload()
    non_dumpable()
    signal.signal(signal.SIGCHLD, signal.SIG_IGN)
    control.send(json.dumps({"ready": True}).encode())
    while True:
        data, fds, _, _ = socket.recv_fds(control, 1 << 16, 1)
        if not data:
            return
        request = json.loads(data)
        if request["op"] == "fork":
            try:
                reply = {"pid": fork_worker(control, fds[0], request["limits"])}
            except OSError as exc:
                reply = {"error": f"fork failed: {exc}"}
        else:
            with contextlib.suppress(OSError):
                os.kill(int(request["pid"]), signal.SIGKILL)
            reply = {"ok": True}
        control.send(json.dumps(reply).encode())


if __name__ == "__main__":
    main()
