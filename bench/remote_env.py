"""A remote sandbox stand-in: a Harbor environment that only waits, as a far-away sandbox would.

    --env remote_env:RemoteStandIn --ek start_s=2 --ek exec_s=0.08 ...   (with bench/ on sys.path)

Every operation sleeps a fixed round trip and then answers from memory; nothing runs on this host
for the sandbox itself, so whatever CPU, event-loop time, threads or file descriptors a run uses
belong to the orchestrator (Harbor's trial, the harness, LiteLLM, the runner). The defaults are
round numbers inside what hosted sandboxes show from one region away:

- ``start_s`` 2.0: creating a sandbox from an already-built image/template (Daytona and E2B
  advertise well under a second for a warm snapshot, Modal a few seconds; a cold image build is
  minutes and is not modelled);
- ``exec_s`` 0.08: one command's API round trip (an HTTPS request to the provider plus a process
  start inside the sandbox; 50-150 ms is usual);
- ``upload_s`` / ``download_s`` 0.15: one file or directory transfer (a round trip plus the
  tar/untar exec most providers add);
- ``stop_s`` 0.5: the delete call.

Invariants:
- the sandbox is a file map (path -> bytes) created by ``start``; uploads put host files into it,
  downloads write them back to the host, so the verifier's reward file and the agent's logs travel
  the way they do with a real remote environment (it declares no host mounts);
- ``exec`` answers a small shell: ``echo TEXT > FILE``, ``cat FILE``, ``ls``, ``rm -f``, ``test -d/-f``,
  and tmux's session commands (``new-session``, ``send-keys`` runs the keys' lines through the same
  shell onto a pane, ``capture-pane`` returns it, ``has-session``, ``wait``); anything else succeeds
  with no output;
- running a script under ``/tests`` is the verifier of the bench task (``tests/support/testutil``'s
  default): it writes reward 1 to ``/logs/verifier/reward.txt`` when ``/app/done.txt`` holds
  ``done``, else 0;
- each operation's nominal wait is recorded per trial (:attr:`RemoteStandIn.spans`), so a bench can
  tell the latency an attempt could not avoid from the time the orchestrator added.
"""

from __future__ import annotations

import asyncio
import posixpath
import shlex
from pathlib import Path
from typing import Any, ClassVar

from harbor.environments.base import BaseEnvironment, ExecResult
from harbor.environments.capabilities import EnvironmentCapabilities
from harbor.environments.options import EnvironmentOptions
from pydantic import Field

PROMPT = "root@remote:/app# "


class RemoteStandInOptions(EnvironmentOptions):
    """Round trips of the simulated provider (``--ek key=value`` or ``environment.kwargs``)."""

    start_s: float = Field(default=2.0, ge=0, description="Sandbox creation from a built image.")
    exec_s: float = Field(default=0.08, ge=0, description="One command's round trip.")
    upload_s: float = Field(default=0.15, ge=0, description="One file or directory upload.")
    download_s: float = Field(default=0.15, ge=0, description="One file or directory download.")
    stop_s: float = Field(default=0.5, ge=0, description="Sandbox deletion.")


class RemoteStandIn(BaseEnvironment):
    """A Harbor environment whose sandbox is elsewhere: fixed latency per call, no local work."""

    options_model = RemoteStandInOptions
    #: trial directory name -> (start, end, operation) of every nominal wait, on the event loop's clock.
    spans: ClassVar[dict[str, list[tuple[float, float, str]]]] = {}

    def __init__(self, *args: Any, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self.files: dict[str, bytes] = {}
        self.dirs: set[str] = set()
        self.pane: list[str] = []

    @staticmethod
    def type() -> str:
        return "bench-remote-stand-in"

    @property
    def capabilities(self) -> EnvironmentCapabilities:
        return EnvironmentCapabilities(disable_internet=True)

    def _validate_definition(self) -> None:
        if not (self.environment_dir / "Dockerfile").is_file() and not self.task_env_config.docker_image:
            raise FileNotFoundError(f"{self.environment_dir}: no Dockerfile and no docker_image")

    async def _wait(self, seconds: float, operation: str) -> None:
        now = asyncio.get_running_loop().time()
        self.spans.setdefault(self.trial_paths.trial_dir.name, []).append((now, now + seconds, operation))
        await asyncio.sleep(seconds)

    @property
    def _opts(self) -> RemoteStandInOptions:
        return self.options  # type: ignore[return-value]

    # ----------------------------------------------------------------- lifecycle
    async def start(self, force_build: bool) -> None:
        await self._wait(self._opts.start_s, "start")
        self.dirs.update({"/", "/app", "/tmp", "/logs", "/logs/agent", "/logs/verifier", "/logs/artifacts"})

    async def stop(self, delete: bool) -> None:
        await self._wait(self._opts.stop_s, "stop")
        self.files.clear()

    # ----------------------------------------------------------------- transfers
    async def upload_file(self, source_path: Path | str, target_path: str) -> None:
        await self._wait(self._opts.upload_s, "upload")
        self._put(target_path, Path(source_path).read_bytes())

    async def upload_dir(self, source_dir: Path | str, target_dir: str) -> None:
        await self._wait(self._opts.upload_s, "upload")
        files = await asyncio.to_thread(_read_tree, Path(source_dir))  # as providers pack in a thread
        for rel, data in files.items():
            self._put(posixpath.join(target_dir, rel), data)

    async def download_file(self, source_path: str, target_path: Path | str) -> None:
        await self._wait(self._opts.download_s, "download")
        if source_path not in self.files:
            raise FileNotFoundError(source_path)
        Path(target_path).parent.mkdir(parents=True, exist_ok=True)
        Path(target_path).write_bytes(self.files[source_path])

    async def download_dir(self, source_dir: str, target_dir: Path | str) -> None:
        await self._wait(self._opts.download_s, "download")
        prefix = source_dir.rstrip("/") + "/"
        for path, data in list(self.files.items()):
            if path.startswith(prefix):
                target = Path(target_dir) / path[len(prefix):]
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(data)

    def _put(self, path: str, data: bytes) -> None:
        path = posixpath.normpath(path if path.startswith("/") else f"/app/{path}")
        self.files[path] = data
        parent = posixpath.dirname(path)
        while parent not in self.dirs:
            self.dirs.add(parent)
            parent = posixpath.dirname(parent)

    # ----------------------------------------------------------------- commands
    async def exec(self, command: str, cwd: str | None = None, env: dict[str, str] | None = None,
                   timeout_sec: int | None = None, user: str | int | None = None) -> ExecResult:
        await self._wait(self._opts.exec_s, "exec")
        script = command.lstrip("('\"").split(maxsplit=1)[0].rstrip(")'\"") if command.strip() else ""
        if script.startswith("/tests/") and script in self.files:  # the verifier: (/tests/test.sh) > ... 2>&1
            return self._verify()
        if "tmux " in command:
            return self._tmux(command)
        code, out = 0, ""
        for part in command.split("&&"):
            code, text = self._shell(part.strip())
            out += text
            if code:
                break
        return ExecResult(stdout=out, stderr="", return_code=code)

    def _verify(self) -> ExecResult:
        done = self.files.get("/app/done.txt", b"").strip() == b"done"
        self._put("/logs/verifier/reward.txt", b"1\n" if done else b"0\n")
        return ExecResult(stdout="", stderr="", return_code=0)

    def _shell(self, line: str) -> tuple[int, str]:
        """One simple command; returns (exit code, output)."""
        try:
            words = shlex.split(line)
        except ValueError:
            return 2, "syntax error\n"
        if not words:
            return 0, ""
        if words[0] == "echo" and ">" in words:
            at = words.index(">")
            self._put(words[at + 1], (" ".join(words[1:at]) + "\n").encode())
            return 0, ""
        if words[0] == "cat" and len(words) > 1:
            path = posixpath.normpath(posixpath.join("/app", words[1]))
            if path not in self.files:
                return 1, f"cat: {words[1]}: No such file or directory\n"
            return 0, self.files[path].decode(errors="replace")
        if words[0] == "ls":
            return 0, "".join(f"{posixpath.basename(p)}\n" for p in sorted(self.files)
                              if posixpath.dirname(p) == "/app")
        if words[0] == "rm":
            for path in words[1:]:
                self.files.pop(path, None)
            return 0, ""
        if words[0] == "test" and len(words) == 3:
            found = words[2] in self.dirs if words[1] == "-d" else words[2] in self.files
            return (0 if found else 1), ""
        return 0, ""

    def _tmux(self, command: str) -> ExecResult:
        """tmux as Harbor's TmuxSession drives it: one session, one pane."""
        words = shlex.split(command)
        if "send-keys" in words:
            keys = words[words.index("--") + 1:] if "--" in words else words[4:]
            self._type("".join("\n" if k in ("Enter", "C-m") else k for k in keys))
        elif "capture-pane" in words:
            return ExecResult(stdout="\n".join([*self.pane, PROMPT]) + "\n", stderr="", return_code=0)
        elif "new-session" in words:
            self.pane = []
        return ExecResult(stdout="", stderr="", return_code=0)

    def _type(self, text: str) -> None:
        *lines, _rest = text.split("\n")
        for line in lines:
            code, out = self._shell(line)
            self.pane.append(PROMPT + line)
            self.pane.extend(out.splitlines())


def _read_tree(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in root.rglob("*") if p.is_file()}
