"""The orchestrator's end of a sandbox's exec server (``execd.py``): one process per sandbox that
runs each command with a single fork, instead of a fresh ``sh → nsenter → setpriv → env`` chain.
Servers are forked by one warm spawner per orchestrating process (:class:`Spawner`), started on
first use.

Invariants:
- one :class:`ExecServer` serves one sandbox from one event loop (the loop it was started in);
- a command's stdout and stderr go to files the caller owns (passed as descriptors), so a
  background process that keeps them open never blocks the command's end;
- a command that times out or whose caller is cancelled has its process group killed, and the call
  returns only once the command has ended;
- the server's death is noticed at once: commands in flight fail with :class:`ExecServerDied`,
  later ones are refused with :class:`ExecServerUnavailable` (nothing was run; the caller may use
  another way).
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import marshal
import os
import socket
import subprocess
import sys
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO

EXECD = Path(__file__).with_name("execd.py")
START_TIMEOUT_S = 30.0


def scratch_file() -> IO[bytes]:
    """An anonymous in-memory file (memfd) for a command's request or output: no disk round trip."""
    return os.fdopen(os.memfd_create("modularrsi-exec", os.MFD_CLOEXEC), "w+b")


class ExecServerUnavailable(RuntimeError):
    """The exec server is not running; the command was not started."""


class ExecServerDied(RuntimeError):
    """The exec server went away while a command was running; its outcome is unknown."""


class _NotStarted(Exception):
    """The server could not fork the command (e.g. the sandbox's process limit is reached)."""


@dataclass(frozen=True)
class Privileges:
    """Who a command runs as: ``uid``/``gid`` ``None`` means root; ``keep_caps`` is the bounding set."""

    uid: int | None
    gid: int | None
    keep_caps: tuple[str, ...]


class Spawner:
    """The process-wide ``execd`` spawner; thread-safe, usable from any event loop."""

    _lock = threading.Lock()
    _current: Spawner | None = None

    def __init__(self) -> None:
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        try:
            self._proc = subprocess.Popen([sys.executable, "-I", "-S", str(EXECD), str(theirs.fileno())],
                                          pass_fds=(theirs.fileno(),), stdin=subprocess.DEVNULL,
                                          stdout=subprocess.DEVNULL, start_new_session=True)
        finally:
            theirs.close()
        self._sock, self._owner = ours, os.getpid()
        self._sock.settimeout(START_TIMEOUT_S)
        if self._receive().get("ready") is not True:
            raise OSError("the exec server spawner did not start")

    def _receive(self) -> dict:
        data = self._sock.recv(1 << 16)
        if not data:
            raise OSError(f"the exec server spawner exited ({self._proc.poll()})")
        return marshal.loads(data)

    @classmethod
    def spawn_server(cls, server_sock: socket.socket, log_fd: int) -> int:
        """Fork a server that talks over ``server_sock`` and logs to ``log_fd``; returns its pid.
        Raises OSError when no server can be had."""
        with cls._lock:
            for attempt in (1, 2):  # a spawner that died (or a forked orchestrator) gets one restart
                current = cls._current
                if current is None or current._owner != os.getpid() or current._proc.poll() is not None \
                        or attempt == 2:
                    cls._current = Spawner()
                try:
                    socket.send_fds(cls._current._sock, [marshal.dumps({"op": "spawn"})],
                                    [server_sock.fileno(), log_fd])
                    reply = cls._current._receive()
                    break
                except OSError:
                    if attempt == 2:
                        raise
        if "error" in reply:
            raise OSError(reply["error"])
        return int(reply["pid"])


class ExecServer:
    """A running ``execd`` server for one sandbox: :meth:`spawn`, then :meth:`enter` the sandbox."""

    def __init__(self, pid: int, sock: socket.socket, log: Path):
        self._pid, self._sock, self._log = pid, sock, log
        self._loop = asyncio.get_running_loop()
        self._pending: dict[int, asyncio.Future[int]] = {}
        self._ids = itertools.count(1)
        self._ready: asyncio.Future[None] = self._loop.create_future()
        self.death: str | None = None
        self._loop.add_reader(sock.fileno(), self._on_readable)

    @classmethod
    async def spawn(cls, log: Path) -> ExecServer:
        """A fresh server, not yet in any sandbox; OSError when none can be had. (The spawner is
        asked from a worker thread: its answer never waits on this event loop.)"""
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        try:
            with log.open("wb") as errors:
                pid = await asyncio.to_thread(Spawner.spawn_server, theirs, errors.fileno())
        except BaseException:
            ours.close()
            raise
        finally:
            theirs.close()
        ours.setblocking(False)
        return cls(pid, ours, log)

    async def enter(self, target_pid: int, join_spec: dict) -> None:
        """Move the server into the sandbox whose init is ``target_pid`` and into its cgroups and
        rlimits (``join_spec``, see :mod:`modularrsi.sandbox.limits`); ExecServerUnavailable (and the
        server closed) when it cannot."""
        try:
            self._send({"op": "enter", "pid": target_pid, **join_spec})
            await asyncio.wait_for(asyncio.shield(self._ready), START_TIMEOUT_S)
        except (TimeoutError, ExecServerDied, ExecServerUnavailable) as exc:
            await self.close()
            raise ExecServerUnavailable(f"exec server did not start: {exc or 'no answer'}") from None

    @property
    def pid(self) -> int:
        return self._pid

    @property
    def usable(self) -> bool:
        """Running, and called from the loop it serves."""
        return self.death is None and asyncio.get_running_loop() is self._loop

    # --------------------------------------------------------------- messages
    def _on_readable(self) -> None:
        while True:
            try:
                data = self._sock.recv(1 << 16)
            except BlockingIOError:
                return
            except OSError as exc:
                data, self.death = b"", f"connection error: {exc}"
            if not data:
                self._died()
                return
            self._dispatch(marshal.loads(data))

    def _dispatch(self, message: dict) -> None:
        if "ready" in message or "fatal" in message:
            if not self._ready.done():
                if "fatal" in message:
                    self._ready.set_exception(ExecServerDied(message["fatal"]))
                else:
                    self._ready.set_result(None)
            return
        future = self._pending.pop(message["id"], None)
        if future is None or future.done():
            return
        if "error" in message:
            future.set_exception(_NotStarted(message["error"]))
        else:
            future.set_result(int(message["rc"]))

    def _died(self) -> None:
        self._loop.remove_reader(self._sock.fileno())
        tail = ""
        with contextlib.suppress(OSError):
            tail = self._log.read_text(errors="replace").strip()[-300:]
        self.death = self.death or f"exec server (pid {self._pid}) exited" + (f": {tail}" if tail else "")
        for future in [self._ready, *self._pending.values()]:
            if not future.done():
                future.set_exception(ExecServerDied(self.death))
        self._pending.clear()

    def _send(self, message: dict, fds: Sequence[int] = ()) -> None:
        try:
            socket.send_fds(self._sock, [marshal.dumps(message)], list(fds))
        except OSError as exc:  # a full buffer included: nothing was started
            raise ExecServerUnavailable(f"cannot reach the exec server: {exc}") from None

    # ---------------------------------------------------------------- running
    async def run(self, command: str, cwd: str, env: dict[str, str], who: Privileges, stdout: IO[bytes],
                  stderr: IO[bytes], timeout_sec: float | None = None, stdin: IO[bytes] | None = None) -> int:
        """Run ``bash -c command`` in the sandbox; returns its exit code (-N when signal N ended it, 126
        with the reason on stderr when it could not be started). On timeout the command's process
        group is killed and TimeoutError raised. ``stdin``: a file to read from (default /dev/null)."""
        if self.death is not None:
            raise ExecServerUnavailable(self.death)
        request = {"command": command, "cwd": cwd, "env": env, "uid": who.uid, "gid": who.gid,
                   "keep_caps": list(who.keep_caps)}
        ident = next(self._ids)
        future = self._loop.create_future()
        with scratch_file() as spec:
            spec.write(marshal.dumps(request))
            spec.flush()
            fds = [spec.fileno(), stdout.fileno(), stderr.fileno(), *([stdin.fileno()] if stdin else [])]
            self._send({"op": "run", "id": ident}, fds)
        self._pending[ident] = future
        try:
            return await asyncio.wait_for(asyncio.shield(future), timeout_sec)
        except _NotStarted as exc:
            stderr.write(f"execd: {exc}\n".encode())
            return 126
        except (TimeoutError, asyncio.CancelledError):
            with contextlib.suppress(ExecServerUnavailable):
                self._send({"op": "kill", "id": ident})
            with contextlib.suppress(_NotStarted):
                await future
            raise

    async def close(self) -> None:
        """Stop the server: it exits when its socket closes (commands it started keep running until
        the sandbox stops)."""
        if self.death is None:
            self.death = "exec server closed"
            self._loop.remove_reader(self._sock.fileno())
        self._sock.close()
        for future in self._pending.values():
            if not future.done():
                future.set_exception(ExecServerDied(self.death))
        self._pending.clear()
