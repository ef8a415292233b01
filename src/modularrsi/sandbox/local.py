"""LocalSandbox: a Harbor environment on bubblewrap, the embedded default of every modularrsi command.

One sandbox is one long-lived ``bwrap`` process holding private user, mount, pid, ipc, uts, cgroup
and net namespaces (started by ``launch.py``). Every ``exec`` runs inside those namespaces, so
processes started by one command (a tmux server, a service on 127.0.0.1) are seen by the next, and
all of them die with the sandbox's pid 1 on ``stop``. Commands are started by the sandbox's exec
server (:mod:`modularrsi.sandbox.exec_server`: one fork per command); when it cannot start or has
died, each command joins the namespaces with its own ``nsenter`` chain instead (same semantics).

Threat model: the agent is adversarial. Invariants:
- every process of the sandbox runs as a host uid in ``UID_BASE..UID_BASE+65535`` (the sandbox's
  uid 0..65535, through the user namespace): "root" inside is root only over the sandbox's own
  files; host files are read-only and readable only when world-readable, host cgroups, sysctls and
  processes are out of reach; the capability bounding set is Docker's default set (no
  CAP_SYS_ADMIN, CAP_NET_ADMIN, CAP_SYS_PTRACE, CAP_MKNOD, CAP_SYS_CHROOT, ...);
- the file system is :mod:`modularrsi.sandbox.layout`'s: host root read-only, a reduced ``/etc``,
  private ``/var`` and ``/run``; everything writable lives on the sandbox's own disk image, mounted
  only inside the sandbox (:mod:`modularrsi.sandbox.storage`): writes past the storage cap fail
  with ENOSPC and the command raises :class:`SandboxLimitExceeded`;
- bwrap's init and every command start from a clean environment (the task's ENV and what the
  harness passes, nothing of the orchestrator's);
- network: ``no-network`` is ``lo`` only; ``public`` is slirp4netns (:mod:`modularrsi.sandbox.network`):
  outbound access, never the host's loopback or the host's network namespace;
- the host reads and writes the sandbox's files only through the sandbox
  (:mod:`modularrsi.sandbox.transfer`): no host path the agent controls is ever followed;
  ``capabilities.mounted`` is false, so Harbor copies logs out after each phase;
- with ``verifier_isolation`` (default), the upload of the tests to ``/tests`` (the verifier's
  start) first kills every process the agent phase left (services included: they are not running
  while the tests run) and empties ``/tests`` and ``/logs/verifier``;
- the whole process tree is charged to the sandbox's cgroups (memory, pids, cpu), the exec server
  included; a limit hit during a command raises :class:`SandboxLimitExceeded` naming the limit;
- a command that times out has its process group killed before ``exec`` raises.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import posixpath
import shutil
import signal
from pathlib import Path
from typing import IO, Any

from harbor.environments.base import BaseEnvironment, ExecResult, SandboxBuildFailedError
from harbor.environments.capabilities import EnvironmentCapabilities
from harbor.models.task.config import NetworkMode

from modularrsi.sandbox import transfer
from modularrsi.sandbox.dockerfile import CopyStep, DockerfileRefused, EnvironmentPlan, parse_dockerfile
from modularrsi.sandbox.exec_server import ExecServer, ExecServerDied, ExecServerUnavailable, Privileges, scratch_file
from modularrsi.sandbox.host import check_host_requirements, foreign_base, require_tools
from modularrsi.sandbox.launcher import UID_BASE, LaunchPlan, launch
from modularrsi.sandbox.layout import (
    PRIVATE_DIRS,
    check_workdir,
    hidden_trials_dir,
    hostname_for,
    sandbox_path,
    writable_target,
)
from modularrsi.sandbox.limits import LimitHits, Limits, make_enforcer, task_limits
from modularrsi.sandbox.network import PublicNetwork, require_slirp
from modularrsi.sandbox.nsenter_chain import run_chain
from modularrsi.sandbox.options import LocalSandboxOptions
from modularrsi.sandbox.storage import DEFAULT_STORAGE_MB, disk_full, make_disk
from modularrsi.sandbox.users import ROOT, TRANSFER_ENV, command_env, privileges


class SandboxLimitExceeded(RuntimeError):
    """A command in the sandbox hit the task's memory, process or storage limit."""


class LocalSandbox(BaseEnvironment):
    """Harbor environment running each trial in its own bubblewrap sandbox on this host."""

    options_model = LocalSandboxOptions

    def __init__(self, *args: Any, **kwargs: Any):
        self._plan: EnvironmentPlan | None = None
        self._proc: asyncio.subprocess.Process | None = None
        self._child_pid: int | None = None
        self._keep: set[int] = set()
        self._server: ExecServer | None = None
        self._network: PublicNetwork | None = None
        self._enforcer = None
        self._hits = LimitHits()
        self._disk_full = False
        super().__init__(*args, **kwargs)
        self._root = self.trial_paths.trial_dir / "sandbox"
        self._hostname = hostname_for(self.trial_paths.trial_dir.name)

    @staticmethod
    def type() -> str:
        return "modularrsi-local"

    @property
    def capabilities(self) -> EnvironmentCapabilities:
        return EnvironmentCapabilities(disable_internet=True, mounted=False)

    @property
    def _opts(self) -> LocalSandboxOptions:
        return self.options  # type: ignore[return-value]

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
        check_host_requirements(self._plan, dockerfile, allow_foreign=True)  # --env local: chosen, so warned
        if foreign := foreign_base(self._plan.base):
            self.logger.warning("%s: %s; LocalSandbox replays it on this host's userland", dockerfile, foreign)
        check_workdir(self._plan.workdir, dockerfile)

    def _limits(self) -> Limits:
        return task_limits(self.environment_dir.parent / "task.toml", self.task_env_config.cpus,
                           self.task_env_config.memory_mb, self._opts.pids_max)

    def _storage_mb(self) -> int:
        return int(self._opts.storage_mb or self.task_env_config.storage_mb or DEFAULT_STORAGE_MB)

    @property
    def _public(self) -> bool:
        return self._network_policy.network_mode != NetworkMode.NO_NETWORK

    # ------------------------------------------------------------------ mapping
    @property
    def workdir(self) -> str:
        assert self._plan is not None
        return self._plan.workdir

    def _writable(self) -> list[str]:
        return sorted({*PRIVATE_DIRS, *self._opts.writable, self.workdir})

    def _sandbox_path(self, path: str) -> str:
        return sandbox_path(path, self.workdir)

    def _writable_target(self, path: str) -> str:
        return writable_target(path, self.workdir, self._writable())

    # ---------------------------------------------------------------- lifecycle
    async def start(self, force_build: bool) -> None:
        assert self._plan is not None
        self._check_host()
        if self._root.exists():
            shutil.rmtree(self._root)
        self._root.mkdir(parents=True)
        await asyncio.to_thread(make_disk, self._root / "disk.img", self._storage_mb(), UID_BASE)
        name = f"{self.session_id}-{os.getpid()}-{id(self):x}".replace("/", "_")
        self._enforcer = make_enforcer(name, self._limits())
        self._server = await self._spawn_exec_server()
        try:
            self._proc, self._child_pid, self._keep = await launch(self._launch_plan(), self._enforcer.wrap)
            if self._public:
                self._network = await PublicNetwork.start(self._child_pid, self._root / "slirp.log")
            await self._enter_exec_server()
            await self._build()
        except BaseException:
            await self.stop(delete=not self._opts.keep_files)
            raise

    def _check_host(self) -> None:
        if os.geteuid() != 0:
            raise SandboxBuildFailedError("LocalSandbox must run as root: it maps each sandbox to "
                                          "unprivileged host uids and mounts its disk")
        require_tools(["bwrap", "nsenter", "setpriv", "mkfs.ext4", "mount"])
        if getattr(self, "_host_mounts", None):
            raise SandboxBuildFailedError("LocalSandbox mounts no host directory; drop the mounts")
        if self._public:
            require_slirp()

    def _launch_plan(self) -> LaunchPlan:
        return LaunchPlan(root=self._root, writable=self._writable(), public=self._public,
                          hide=hidden_trials_dir(self.trial_paths.trial_dir), hostname=self._hostname)

    async def _spawn_exec_server(self) -> ExecServer | None:
        if not self._opts.exec_server:
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
            self._keep.add(self._server.pid)
        except ExecServerUnavailable as exc:
            self._server = None
            self.logger.warning("LocalSandbox %s: %s; using an nsenter chain per command", self.session_id, exc)

    async def _build(self) -> None:
        assert self._plan is not None
        dockerfile = self.environment_dir / "Dockerfile"
        for step in self._plan.steps:
            if isinstance(step, CopyStep):
                await self._copy(step, dockerfile)
                continue
            result = await self.exec(step.command, cwd=step.workdir, env=dict(step.env), user="root")
            if result.return_code != 0:
                tail = ((result.stderr or "") + (result.stdout or "")).strip().splitlines()[-1:] or [""]
                raise SandboxBuildFailedError(
                    f"{dockerfile}:{step.line}: RUN failed with exit {result.return_code}: {tail[0]}")

    async def _copy(self, step: CopyStep, dockerfile: Path) -> None:
        for source in step.sources:
            src = (self.environment_dir / source).resolve()
            if not src.exists() or not src.is_relative_to(self.environment_dir.resolve()):
                raise SandboxBuildFailedError(
                    f"{dockerfile}:{step.line}: COPY source '{source}' not found in {self.environment_dir}")
            try:
                dest = self._writable_target(step.target)
            except PermissionError as exc:
                raise SandboxBuildFailedError(f"{dockerfile}:{step.line}: {exc}") from None
            if src.is_dir():
                await self._upload_tree(src, dest)
            elif step.target.endswith("/"):
                await self._upload_one(src, posixpath.join(dest, src.name))
            else:
                await self._upload_one(src, dest, into_dir_as=src.name)

    async def stop(self, delete: bool) -> None:
        if self._server is not None:
            await self._server.close()
            self._server = None
        if self._proc is not None and self._proc.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self._proc.pid, signal.SIGKILL)
        if self._enforcer is not None:  # before the wait, which returns only once no process holds its pipes
            await asyncio.to_thread(self._enforcer.kill_all)
        if self._proc is not None:
            await self._proc.wait()
        if self._network is not None:
            await self._network.stop()
            self._network = None
        if self._enforcer is not None:
            await asyncio.to_thread(self._enforcer.remove)
        self._proc = self._child_pid = None
        if delete and not self._opts.keep_files and self._root.exists():
            await asyncio.to_thread(shutil.rmtree, self._root, True)
    # --------------------------------------------------------------------- exec
    async def exec(self, command: str, cwd: str | None = None, env: dict[str, str] | None = None,
                   timeout_sec: int | None = None, user: str | int | None = None) -> ExecResult:
        if self._child_pid is None:
            raise RuntimeError("LocalSandbox: exec before start (or after stop)")
        assert self._plan is not None
        who, user_env = privileges(self._resolve_user(user))
        full_env = {**command_env(self._hostname, self._plan.env, self._merge_env(env)), **user_env}
        with scratch_file() as out, scratch_file() as err:
            try:
                code = await self._run(command, cwd or self.workdir, full_env, who, out, err, timeout_sec)
            except TimeoutError:
                self._raise_on_limit_hit(command)
                raise RuntimeError(f"Command timed out after {timeout_sec} seconds") from None
            stdout, stderr = _read(out), _read(err)
        self._raise_on_limit_hit(command)
        return ExecResult(stdout=stdout, stderr=stderr, return_code=code)

    async def _run(self, command: str, cwd: str, env: dict[str, str], who: Privileges, out: Any, err: Any,
                   timeout_sec: int | None, stdin: IO[bytes] | None = None) -> int:
        """Exit code of ``bash -c command``; TimeoutError once a timed-out command's group is killed."""
        if self._server is not None and self._server.death is not None:
            server, self._server = self._server, None
            self.logger.warning("LocalSandbox %s: %s; using an nsenter chain per command from now on",
                                self.session_id, server.death)
            await server.close()
        if self._server is not None and self._server.usable:
            try:
                return await self._server.run(command, cwd, env, who, out, err, timeout_sec, stdin)
            except ExecServerDied as exc:
                raise RuntimeError(f"LocalSandbox {self.session_id}: {exc}; the outcome of this command is "
                                   f"unknown: {command[:120]}") from None
            except ExecServerUnavailable as exc:
                self.logger.warning("LocalSandbox %s: %s; using an nsenter chain per command from now on",
                                    self.session_id, exc)
        return await run_chain(self._child_pid, self._enforcer.wrap, command, cwd, env, who, out, err,
                               timeout_sec, stdin)

    def _raise_on_limit_hit(self, command: str) -> None:
        now = self._enforcer.hits()
        message = now.since(self._hits).describe(self._enforcer.limits)
        self._hits = now
        full = self._child_pid is not None and disk_full(self._child_pid)
        if full and not self._disk_full and not message:
            message = f"storage limit of {self._storage_mb()} MB reached: disk full (ENOSPC)"
        self._disk_full = full
        if message:
            raise SandboxLimitExceeded(f"LocalSandbox {self.session_id}: {message} "
                                       f"while running: {command[:120]}")

    # ---------------------------------------------------------------- transfers
    async def _transfer(self, command: str, stdin: IO[bytes] | None = None,
                        stdout: IO[bytes] | None = None) -> None:
        """Run a transfer command inside the sandbox as its root; RuntimeError when it fails."""
        if self._child_pid is None:
            raise RuntimeError("LocalSandbox: transfer before start (or after stop)")
        with scratch_file() as err, contextlib.ExitStack() as stack:
            out = stdout or stack.enter_context(scratch_file())
            code = await self._run(command, "/", dict(TRANSFER_ENV), ROOT, out, err, None, stdin)
            if code != 0:
                tail = _read(err).strip().splitlines()[-1:] or [f"exit {code}"]
                raise RuntimeError(f"LocalSandbox: {command[:80]}: {tail[0]}")

    async def _upload_one(self, source: Path, target: str, into_dir_as: str | None = None) -> None:
        await transfer.put_file(self._transfer, source, target, into_dir_as)

    async def _upload_tree(self, source: Path, target: str) -> None:
        await transfer.put_tree(self._transfer, source, target)

    async def upload_file(self, source_path: Path | str, target_path: str) -> None:
        await self._upload_one(Path(source_path), self._writable_target(target_path))

    async def upload_dir(self, source_dir: Path | str, target_dir: str) -> None:
        target = self._writable_target(target_dir)
        if target == "/tests" and self._opts.verifier_isolation:
            await self._isolate_for_verifier()
        await self._upload_tree(Path(source_dir), target)

    async def download_file(self, source_path: str, target_path: Path | str) -> None:
        await transfer.get_file(self._transfer, self._sandbox_path(source_path), Path(target_path))

    async def download_dir(self, source_dir: str, target_dir: Path | str) -> None:
        await transfer.get_tree(self._transfer, self._sandbox_path(source_dir), Path(target_dir))

    async def _isolate_for_verifier(self) -> None:
        """Kill every process of the agent phase (all but the sandbox's init and the exec server) and
        empty what the agent could have planted for the verifier."""
        if self._child_pid is None:
            return
        pid_ns = os.readlink(f"/proc/{self._child_pid}/ns/pid")
        await asyncio.to_thread(self._enforcer.kill_except, set(self._keep), pid_ns)
        self._hits = self._enforcer.hits()
        await self._transfer("find /tests /logs/verifier -mindepth 1 -maxdepth 1 -exec rm -rf -- {} +")


def _read(handle: Any) -> str:
    handle.seek(0)
    return handle.read().decode(errors="replace")
