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
#: Kernel wait channels of a process that sleeps until input arrives (from the terminal, a pipe, a socket
#: or a poll over them; a suffix such as ``.constprop.0`` is dropped before comparing): a foreground
#: program in one of these draws nothing more until it is sent keys. A timer sleep or a wait for a
#: child is not here: that program is still working.
INPUT_WAITS = ("wait_woken", "n_tty_read", "poll_schedule_timeout", "do_select", "core_sys_select", "do_sys_poll",
               "do_poll", "ep_poll", "do_epoll_wait", "pipe_read", "pipe_write", "unix_stream_read_generic",
               "inet_csk_accept", "sk_wait_data", "read_events")
#: How often the settle loop looks (seconds); the screen counts as still when two looks this far apart agree.
SETTLE_POLL_S = 0.05

#: One exec that returns (exit 0) once the pane has settled, or exits 1 at the cap. Settled: the shell
#: is the terminal's foreground process group and sleeps waiting for input (its prompt is back; not
#: still reading or running the line just typed), or every process of the foreground group sleeps
#: waiting for input (INPUT_WAITS) — and two captures of the screen SETTLE_POLL_S apart agree. Bash
#: builtins only inside the loop (``read`` from /proc), so a look forks nothing but tmux.
_SETTLE_SCRIPT = r"""
n={name}; waits=' {waits} '; end=$((SECONDS + {cap}))
waiting() {{  # waiting DIR STATE: the process sleeps in one of the input waits
  [ "$2" = S ] || return 1; w=; read -r w < "$1/wchan" 2>/dev/null; w=${{w%%.*}}  # poll_schedule_timeout.constprop.0
  case "$waits" in *" $w "*) ;; *) return 1;; esac
}}
idle() {{
  p=$(tmux display-message -p -t "$n" '#{{pane_pid}}' 2>/dev/null) || return 0
  read -r s < /proc/$p/stat 2>/dev/null || return 0
  set -- ${{s##*) }}; fg=$6
  if [ "$fg" = "$3" ]; then waiting /proc/$p "$1"; return; fi  # at its prompt, not still reading a line
  for f in /proc/[0-9]*/stat; do
    read -r s < "$f" 2>/dev/null || continue; set -- ${{s##*) }}
    [ "$3" = "$fg" ] || continue; waiting "${{f%/stat}}" "$1" || return 1
  done
}}
while [ $SECONDS -le $end ]; do
  if idle; then a=$(tmux capture-pane -p -t "$n"); sleep {poll}; [ "$a" = "$(tmux capture-pane -p -t "$n")" ] && exit 0
  else sleep {poll}; fi
done
exit 1
"""


class TmuxTerminal:
    """Implements :class:`modularrsi.harness.protocols.Terminal` on Harbor's ``TmuxSession``."""

    def __init__(self, environment: BaseEnvironment, session_name: str, log_path: PurePosixPath,
                 pane_width: int = 160, pane_height: int = 40, extra_env: dict[str, str] | None = None,
                 recording: Path | None = None, settle_s: float = 0.0):
        self.environment, self.name, self.recording = environment, session_name, recording
        self.settle_s = settle_s
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
        if self.settle_s > 0:
            await self.settle()

    async def settle(self) -> bool:
        """Wait (at most ``settle_s``) until the pane has settled (see ``_SETTLE_SCRIPT``), so what is read
        next does not depend on how fast the machine ran the command; False when the cap was reached."""
        script = _SETTLE_SCRIPT.format(name=shlex.quote(self.name), waits=" ".join(INPUT_WAITS),
                                       cap=max(1, round(self.settle_s)), poll=SETTLE_POLL_S)
        result = await self.environment.exec(f"bash -c {shlex.quote(script)}", user=self.environment.default_user,
                                             timeout_sec=int(self.settle_s) + 30)
        return result.return_code == 0

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
