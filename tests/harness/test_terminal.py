"""TmuxTerminal on a real LocalSandbox: the session starts in one exec, as Harbor's would in three."""

from __future__ import annotations

from pathlib import PurePosixPath

from sandbox_helpers import make_sandbox

from modularrsi.harness.terminal import HISTORY_LIMIT, TmuxTerminal


async def test_session_starts_in_one_exec_with_harbors_settings(task_factory, tmp_path):
    box = make_sandbox(task_factory(), tmp_path / "t")
    await box.start(force_build=False)
    commands: list[str] = []
    run = box.exec

    async def counting_exec(command, *args, **kwargs):
        commands.append(command)
        return await run(command, *args, **kwargs)

    box.exec = counting_exec
    try:
        terminal = TmuxTerminal(box, "probe", PurePosixPath("/logs/agent/probe.pane"), 100, 30, {"EXTRA": "1"})
        await terminal.start()
        assert len(commands) == 1
        assert await terminal.alive()
        options = await run("tmux show-options -g history-limit; "
                            "tmux display -p -t probe '#{pane_width}x#{pane_height}'")
        assert options.stdout.split() == ["history-limit", str(HISTORY_LIMIT), "100x30"]
        await terminal.send_keys("echo extra=$EXTRA > /tmp/seen\n", min_timeout_sec=0.2)
        assert (await run("cat /tmp/seen")).stdout == "extra=1\n"
        assert "echo extra=$EXTRA" in await terminal.incremental_output()
    finally:
        await box.stop(delete=True)
