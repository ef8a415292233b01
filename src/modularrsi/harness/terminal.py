"""The kernel's terminal: Harbor's tmux session inside the task environment, plus plain exec.

Starting the session takes one exec when tmux is present (Harbor's ``TmuxSession.start`` takes three:
version check, session start, history limit); when it is missing, Harbor's own start installs it.
"""

from __future__ import annotations

import shlex
from pathlib import Path, PurePosixPath

from harbor.agents.terminus_2.tmux_session import TmuxSession
from harbor.environments.base import BaseEnvironment
from harbor.models.trial.paths import EnvironmentPaths

#: Exit code of the combined start command when tmux is not installed in the environment.
TMUX_MISSING = 97
HISTORY_LIMIT = 10_000_000  # as Harbor sets it
#: A start waits (at most 250 × 20 ms) until the shell has drawn something, so the first observation
#: never shows an empty screen because bash was still starting (Harbor's three start commands give it
#: that time by chance; one command does not).
PROMPT_POLLS = 250


class TmuxTerminal:
    """Implements :class:`modularrsi.harness.protocols.Terminal` on Harbor's ``TmuxSession``."""

    def __init__(self, environment: BaseEnvironment, session_name: str, log_path: PurePosixPath,
                 pane_width: int = 160, pane_height: int = 40, extra_env: dict[str, str] | None = None,
                 recording: Path | None = None):
        self.environment, self.name, self.recording = environment, session_name, recording
        remote = EnvironmentPaths.agent_dir / recording.name if recording is not None else None
        self.session = TmuxSession(session_name=session_name, environment=environment, logging_path=log_path,
                                   local_asciinema_recording_path=recording, remote_asciinema_recording_path=remote,
                                   pane_width=pane_width, pane_height=pane_height, extra_env=extra_env,
                                   user=environment.default_user)
        self.wait_s = 0.0

    async def start(self) -> None:
        """Harbor's session start in one command: check tmux, start the session, raise its history
        limit (a failure there is ignored, as Harbor does), wait for the shell's prompt. A recorded
        session starts through Harbor's own start, which installs asciinema and types the recording's
        set-up commands, as Terminus-2's does."""
        if self.recording is not None:
            await self.session.start()
            return
        name = shlex.quote(self.name)
        command = (f"command -v tmux >/dev/null 2>&1 || exit {TMUX_MISSING}; "
                   f"{self.session._tmux_start_session} || exit $?; "
                   f"tmux set-option -g history-limit {HISTORY_LIMIT} >/dev/null 2>&1; "
                   f"for _ in $(seq {PROMPT_POLLS}); do "  # until bash has drawn its prompt (see PROMPT_POLLS)
                   f"tmux capture-pane -p -t {name} | grep -q '[^[:space:]]' && break; sleep 0.02; done; exit 0")
        result = await self.environment.exec(command, user=self.environment.default_user)
        if result.return_code == TMUX_MISSING:
            await self.session.start()
        elif result.return_code != 0:
            raise RuntimeError(f"Failed to start tmux session. Error: {result.stderr}")

    async def send_keys(self, keys: str, min_timeout_sec: float = 0.0) -> None:
        self.wait_s += min_timeout_sec
        await self.session.send_keys(keys, block=False, min_timeout_sec=min_timeout_sec)

    async def incremental_output(self) -> str:
        return await self.session.get_incremental_output()

    async def screen(self) -> str:
        return await self.session.capture_pane(capture_entire=False)

    async def exec(self, command: str, timeout_sec: int | None = None) -> tuple[int, str]:
        result = await self.environment.exec(command, timeout_sec=timeout_sec)
        return result.return_code, (result.stdout or "") + (result.stderr or "")

    async def alive(self) -> bool:
        """Whether the tmux session (its shell) still runs."""
        return await self.session.is_session_alive()
