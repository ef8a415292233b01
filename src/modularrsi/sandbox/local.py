"""LocalSandbox: a Harbor environment on bubblewrap, the embedded default of every modularrsi command.

One sandbox is one long-lived ``bwrap`` process holding private mount, pid, ipc, uts and (unless
the task asks for the network) net namespaces. Every ``exec`` runs inside those namespaces, so
processes started by one command (a tmux server, a service on 127.0.0.1) are seen by the next, and
all of them die with the sandbox's pid 1 on ``stop``. Commands are started by the sandbox's exec
server (:mod:`modularrsi.sandbox.exec_server`: one fork per command); when it cannot start or has
died, each command joins the namespaces with its own ``nsenter`` chain instead (same semantics).

Invariants:
- the host's root is visible read-only; writable paths (the workdir, ``/tmp``, ``$HOME``,
  ``/logs/*``, ``/tests``, ``/solution``, ``/installed-agent``) are bind mounts of directories
  under the trial's own host directory, so everything written lands there;
- ``/tests`` and ``/solution`` start empty: Harbor uploads them only for the verifier or oracle;
- commands run as root with Docker's default capability set (no CAP_SYS_ADMIN: no remounts), or
  as the requested user;
- the whole process tree is charged to the sandbox's cgroups (memory, pids, cpu), the exec server
  included (one process); a limit hit during a command raises :class:`SandboxLimitExceeded` naming
  the limit;
- a command that times out has its process group killed before ``exec`` raises.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import posixpath
import pwd
import shutil
import signal
import tempfile
import tomllib
from pathlib import Path, PurePosixPath
from typing import Any

from harbor.environments.base import BaseEnvironment, ExecResult, SandboxBuildFailedError
from harbor.environments.capabilities import EnvironmentCapabilities
from harbor.environments.options import EnvironmentOptions
from harbor.models.task.config import NetworkMode
from pydantic import Field

from modularrsi.sandbox.dockerfile import (
    CopyStep,
    DockerfileRefused,
    EnvironmentPlan,
    parse_dockerfile,
)
from modularrsi.sandbox.exec_server import ExecServer, ExecServerDied, ExecServerUnavailable, Privileges
from modularrsi.sandbox.host import check_host_requirements, host_root_entries, require_tools
from modularrsi.sandbox.limits import LimitHits, Limits, make_enforcer
from modularrsi.sandbox.nsenter_chain import run_chain

DEFAULT_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
#: Docker's default capability set, minus raw sockets, mknod and chroot.
ROOT_CAPS = ("chown", "dac_override", "fowner", "fsetid", "kill", "setgid", "setuid", "setpcap", "net_bind_service",
             "audit_write", "setfcap")
PRIVATE_DIRS = ("/tmp", "/root", "/home", "/tests", "/solution", "/installed-agent")


class SandboxLimitExceeded(RuntimeError):
    """A command in the sandbox hit the task's memory or process limit."""


class LocalSandboxOptions(EnvironmentOptions):
    """Options for ``--ek key=value`` (Harbor CLI) or ``environment.kwargs``."""

    auto_mounting: bool = Field(default=True, description="Bind /logs/* to the trial's dirs.")
    pids_max: int | None = Field(default=None, description="Process ceiling; default task.toml "
                                 "[environment].pids_max, else 1024.")
    writable: list[str] = Field(default_factory=list, description="Extra absolute paths to make "
                                "writable (each becomes a private directory).")
    keep_files: bool = Field(default=False, description="Keep the sandbox's host directory after "
                             "stop (it lives under the trial directory).")
    exec_server: bool = Field(default=True, description="Start commands from a per-sandbox exec server "
                              "(one fork each); false: a fresh nsenter chain per command.")


class LocalSandbox(BaseEnvironment):
    """Harbor environment running each trial in its own bubblewrap sandbox on this host."""

    options_model = LocalSandboxOptions

    def __init__(self, *args: Any, **kwargs: Any):
        self._plan: EnvironmentPlan | None = None
        self._proc: asyncio.subprocess.Process | None = None
        self._child_pid: int | None = None
        self._server: ExecServer | None = None
        self._enforcer = None
        self._hits = LimitHits()
        super().__init__(*args, **kwargs)
        self._root = self.trial_paths.trial_dir / "sandbox"

    @staticmethod
    def type() -> str:
        return "modularrsi-local"

    @property
    def capabilities(self) -> EnvironmentCapabilities:
        return EnvironmentCapabilities(disable_internet=True, mounted=True)

    # ----------------------------------------------------------------- definition
    def _validate_definition(self) -> None:
        dockerfile = self.environment_dir / "Dockerfile"
        if not dockerfile.is_file():
            raise FileNotFoundError(f"{dockerfile}: not found (LocalSandbox needs a Dockerfile)")
        try:
            self._plan = parse_dockerfile(dockerfile)
        except DockerfileRefused as exc:
            self.logger.error("%s", exc)  # into the trial's log too, not only its result
            raise SandboxBuildFailedError(str(exc)) from None
        if self.task_env_config.workdir:
            self._plan.workdir = self.task_env_config.workdir
        check_host_requirements(self._plan, dockerfile)
        _check_workdir(self._plan.workdir, dockerfile)

    def _task_toml(self) -> dict[str, Any]:
        path = self.environment_dir.parent / "task.toml"
        try:
            return tomllib.loads(path.read_text())
        except (OSError, tomllib.TOMLDecodeError):
            return {}

    def _limits(self) -> Limits:
        opts: LocalSandboxOptions = self.options  # type: ignore[assignment]
        pids = opts.pids_max or self._task_toml().get("environment", {}).get("pids_max") or 1024
        return Limits(cpus=self.task_env_config.cpus, memory_mb=self.task_env_config.memory_mb,
                      pids_max=int(pids))

    # ------------------------------------------------------------------ mapping
    @property
    def workdir(self) -> str:
        assert self._plan is not None
        return self._plan.workdir

    def _binds(self) -> dict[str, Path]:
        """Sandbox path -> host directory, for every writable location."""
        opts: LocalSandboxOptions = self.options  # type: ignore[assignment]
        binds = {p: self._root / "fs" / p.strip("/") for p in (*PRIVATE_DIRS, *opts.writable)}
        binds[self.workdir] = self._root / "fs" / self.workdir.strip("/")
        for mount in self._mounts:
            if mount["type"] == "bind":
                binds[str(mount["target"])] = Path(mount["source"])
        return binds

    def _host_path(self, path: str, *, for_write: bool) -> Path:
        """Where a sandbox path lives on the host (writable binds first, then the read-only root).
        ``..`` is resolved lexically first, so no path maps outside the bind it names."""
        target = posixpath.normpath(path if path.startswith("/") else f"{self.workdir}/{path}")
        target = "/" + target.lstrip("/")  # normpath keeps a leading "//"
        binds = self._binds()
        owner = max((p for p in binds if target == p or target.startswith(p.rstrip("/") + "/")),
                    key=len, default=None)
        if owner is not None:
            rest = target[len(owner.rstrip("/")):].lstrip("/")
            return binds[owner] / rest if rest else binds[owner]
        if for_write:
            raise PermissionError(
                f"LocalSandbox: {path} is outside the writable paths ({', '.join(sorted(binds))}); "
                "add it with --ek writable=[...]")
        return Path(target)

    def is_path_mounted(self, environment_path: Any, host_path: Path) -> bool:
        try:
            return self._host_path(str(environment_path), for_write=True).resolve() == host_path.resolve()
        except PermissionError:
            return False

    # ---------------------------------------------------------------- lifecycle
    async def start(self, force_build: bool) -> None:
        assert self._plan is not None
        require_tools(["bwrap", "nsenter", "setpriv"])
        if self._root.exists():
            shutil.rmtree(self._root)
        for host_dir in self._binds().values():
            host_dir.mkdir(parents=True, exist_ok=True)
        name = f"{self.session_id}-{os.getpid()}-{id(self):x}".replace("/", "_")
        self._enforcer = make_enforcer(name, self._limits())
        self._server = await self._spawn_exec_server()
        try:
            await self._launch()
        except BaseException:
            await self.stop(delete=False)
            raise
        try:
            await self._enter_exec_server()
            await self._build()
        except BaseException:
            await self.stop(delete=True)
            raise

    def _bwrap_argv(self, info_fd: int) -> list[str]:
        argv = ["bwrap"]
        binds = self._binds()
        for entry, link in host_root_entries():
            if entry in binds:
                continue
            argv += ["--symlink", link, entry] if link else ["--ro-bind", entry, entry]
        argv += ["--dev", "/dev", "--proc", "/proc"]
        for target, source in sorted(binds.items(), key=lambda kv: len(kv[0])):
            argv += ["--bind", str(source), target]
        argv += ["--remount-ro", "/", "--unshare-all", "--die-with-parent", "--new-session",
                 "--hostname", "sandbox", "--info-fd", str(info_fd)]
        if self._network_policy.network_mode != NetworkMode.NO_NETWORK:
            argv.append("--share-net")
        return [*argv, "--", "/bin/sh", "-c", "echo ready; exec sleep infinity"]

    async def _launch(self) -> None:
        read_fd, write_fd = os.pipe()
        argv = self._enforcer.wrap(self._bwrap_argv(write_fd))
        try:
            self._proc = await asyncio.create_subprocess_exec(
                *argv, pass_fds=(write_fd,), stdin=asyncio.subprocess.DEVNULL,
                stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
                start_new_session=True)
        finally:
            os.close(write_fd)
        info = await asyncio.to_thread(_read_all, read_fd)
        ready = await self._proc.stdout.readline()  # the init runs only once the sandbox is set up
        if not info or ready != b"ready\n":
            err = (await self._proc.stderr.read()).decode(errors="replace").strip()
            raise SandboxBuildFailedError(f"LocalSandbox: bubblewrap failed to start: {err}")
        self._child_pid = int(json.loads(info)["child-pid"])

    async def _spawn_exec_server(self) -> ExecServer | None:
        opts: LocalSandboxOptions = self.options  # type: ignore[assignment]
        if not opts.exec_server:
            return None
        try:
            return await ExecServer.spawn(self._root / "execd.log")
        except OSError as exc:
            self.logger.warning("LocalSandbox %s: cannot start the exec server (%s); using an nsenter chain "
                                "per command", self.session_id, exc)
            return None

    async def _enter_exec_server(self) -> None:
        if self._server is None:
            return
        try:
            await self._server.enter(self._child_pid, self._enforcer.join_spec())
        except ExecServerUnavailable as exc:
            self._server = None
            self.logger.warning("LocalSandbox %s: %s; using an nsenter chain per command", self.session_id, exc)

    async def _build(self) -> None:
        assert self._plan is not None
        dockerfile = self.environment_dir / "Dockerfile"
        for step in self._plan.steps:
            if isinstance(step, CopyStep):
                self._copy(step, dockerfile)
                continue
            result = await self.exec(step.command, cwd=step.workdir, env=dict(step.env), user="root")
            if result.return_code != 0:
                tail = ((result.stderr or "") + (result.stdout or "")).strip().splitlines()[-1:] or [""]
                raise SandboxBuildFailedError(
                    f"{dockerfile}:{step.line}: RUN failed with exit {result.return_code}: {tail[0]}")

    def _copy(self, step: CopyStep, dockerfile: Path) -> None:
        for source in step.sources:
            src = (self.environment_dir / source).resolve()
            if not src.exists() or not src.is_relative_to(self.environment_dir.resolve()):
                raise SandboxBuildFailedError(
                    f"{dockerfile}:{step.line}: COPY source '{source}' not found in {self.environment_dir}")
            try:
                dest = self._host_path(step.target, for_write=True)
            except PermissionError as exc:
                raise SandboxBuildFailedError(f"{dockerfile}:{step.line}: {exc}") from None
            if src.is_dir():
                shutil.copytree(src, dest, dirs_exist_ok=True, symlinks=True)
            else:
                if step.target.endswith("/") or dest.is_dir():
                    dest = dest / src.name
                dest.parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(src, dest)

    async def stop(self, delete: bool) -> None:
        if self._server is not None:
            await self._server.close()
            self._server = None
        if self._proc is not None and self._proc.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self._proc.pid, signal.SIGKILL)
            await self._proc.wait()
        if self._enforcer is not None:
            await asyncio.to_thread(self._enforcer.kill_all)
            await asyncio.to_thread(self._enforcer.remove)
        self._proc = None
        opts: LocalSandboxOptions = self.options  # type: ignore[assignment]
        if delete and not opts.keep_files and self._root.exists():
            await asyncio.to_thread(shutil.rmtree, self._root, True)

    # --------------------------------------------------------------------- exec
    def _exec_env(self, env: dict[str, str] | None) -> dict[str, str]:
        assert self._plan is not None
        base = {"PATH": DEFAULT_PATH, "HOME": "/root", "LANG": "C.UTF-8", "TERM": "xterm-256color",
                "USER": "root", "HOSTNAME": "sandbox"}
        return {**base, **self._plan.env, **(self._merge_env(env) or {})}

    def _privileges(self, user: str | int | None) -> tuple[Privileges, dict[str, str]]:
        if user in (None, "root", 0, "0"):
            return Privileges(None, None, ROOT_CAPS), {}
        try:
            entry = pwd.getpwuid(int(user)) if str(user).isdigit() else pwd.getpwnam(str(user))
        except KeyError:
            raise ValueError(f"LocalSandbox: user '{user}' does not exist on this host") from None
        return Privileges(entry.pw_uid, entry.pw_gid, ()), {"USER": entry.pw_name}

    async def exec(self, command: str, cwd: str | None = None, env: dict[str, str] | None = None,
                   timeout_sec: int | None = None, user: str | int | None = None) -> ExecResult:
        if self._child_pid is None:
            raise RuntimeError("LocalSandbox: exec before start (or after stop)")
        who, user_env = self._privileges(self._resolve_user(user))
        full_env = {**self._exec_env(env), **user_env}
        with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
            try:
                code = await self._run(command, cwd or self.workdir, full_env, who, out, err, timeout_sec)
            except TimeoutError:
                self._raise_on_limit_hit(command)
                raise RuntimeError(f"Command timed out after {timeout_sec} seconds") from None
            stdout, stderr = _read(out), _read(err)
        self._raise_on_limit_hit(command)
        return ExecResult(stdout=stdout, stderr=stderr, return_code=code)

    async def _run(self, command: str, cwd: str, env: dict[str, str], who: Privileges, out: Any, err: Any,
                   timeout_sec: int | None) -> int:
        """Exit code of ``bash -c command``; TimeoutError once a timed-out command's group is killed."""
        if self._server is not None and self._server.death is not None:
            server, self._server = self._server, None
            self.logger.warning("LocalSandbox %s: %s; using an nsenter chain per command from now on",
                                self.session_id, server.death)
            await server.close()
        if self._server is not None and self._server.usable:
            try:
                return await self._server.run(command, cwd, env, who, out, err, timeout_sec)
            except ExecServerDied as exc:
                raise RuntimeError(f"LocalSandbox {self.session_id}: {exc}; the outcome of this command is "
                                   f"unknown: {command[:120]}") from None
            except ExecServerUnavailable as exc:
                self.logger.warning("LocalSandbox %s: %s; using an nsenter chain per command from now on",
                                    self.session_id, exc)
        return await run_chain(self._child_pid, self._enforcer.wrap, command, cwd, env, who, out, err,
                               timeout_sec)

    def _raise_on_limit_hit(self, command: str) -> None:
        now = self._enforcer.hits()
        message = now.since(self._hits).describe(self._enforcer.limits)
        self._hits = now
        if message:
            raise SandboxLimitExceeded(f"LocalSandbox {self.session_id}: {message} "
                                       f"while running: {command[:120]}")

    # ---------------------------------------------------------------- transfers
    async def upload_file(self, source_path: Path | str, target_path: str) -> None:
        dest = self._host_path(target_path, for_write=True)
        dest.parent.mkdir(parents=True, exist_ok=True)
        await asyncio.to_thread(shutil.copy2, source_path, dest)

    async def upload_dir(self, source_dir: Path | str, target_dir: str) -> None:
        dest = self._host_path(target_dir, for_write=True)
        await asyncio.to_thread(shutil.copytree, source_dir, dest, dirs_exist_ok=True, symlinks=True)

    async def download_file(self, source_path: str, target_path: Path | str) -> None:
        src = self._host_path(source_path, for_write=False)
        Path(target_path).parent.mkdir(parents=True, exist_ok=True)
        await asyncio.to_thread(shutil.copy2, src, target_path)

    async def download_dir(self, source_dir: str, target_dir: Path | str) -> None:
        src = self._host_path(source_dir, for_write=False)
        if Path(target_dir).resolve() == src.resolve():
            return
        await asyncio.to_thread(shutil.copytree, src, target_dir, dirs_exist_ok=True, symlinks=True)


def _check_workdir(workdir: str, dockerfile: Path) -> None:
    """The workdir becomes a private bind; bwrap can create its mount point only off the host root."""
    parts = PurePosixPath(workdir).parts
    top = "/" + parts[1] if len(parts) > 1 else "/"
    hosted = {entry for entry, _ in host_root_entries()}
    creatable = len(parts) == 2 or top not in hosted or os.path.isdir(workdir)
    if top == "/" or (top in hosted and top not in PRIVATE_DIRS and not creatable):
        raise SandboxBuildFailedError(
            f"{dockerfile}: WORKDIR {workdir} lies inside the host's read-only {top}; "
            "use a fresh top-level directory such as /app")


def _read(handle: Any) -> str:
    handle.seek(0)
    return handle.read().decode(errors="replace")


def _read_all(fd: int) -> str:
    chunks = []
    with os.fdopen(fd, "rb") as f:
        while chunk := f.read(4096):
            chunks.append(chunk)
            if b"}" in chunk:
                break
    return b"".join(chunks).decode()
