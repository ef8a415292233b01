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


async def test_settle_waits_for_the_command_not_the_clock_and_not_for_a_program_awaiting_input(task_factory,
                                                                                              tmp_path):
    """With settle on, a command that outlives its wait is read when it has finished (whatever the load);
    a foreground program that waits for input (cat, a REPL) counts as settled; off, the screen is read when
    the wait ends, as Terminus-2 reads it."""
    box = make_sandbox(task_factory(), tmp_path / "t")
    await box.start(force_build=False)
    try:
        settled = TmuxTerminal(box, "settled", PurePosixPath("/logs/agent/s.pane"), settle_s=300)
        await settled.start()
        assert await settled.settle()  # a shell at its prompt has settled (well before the cap)
        await settled.send_keys("sleep 2; echo FINISHED-$((6 * 7))\n", min_timeout_sec=0.1)
        assert "FINISHED-42" in await settled.incremental_output()
        await settled.send_keys("cat\n", min_timeout_sec=0.1)
        assert await settled.settle()  # waiting for input: settled well before the 300 s cap
        await settled.send_keys("typed-into-cat\n", min_timeout_sec=0.1)
        assert (await settled.screen()).count("typed-into-cat") == 2  # the echo and cat's copy

        plain = TmuxTerminal(box, "plain", PurePosixPath("/logs/agent/p.pane"))
        await plain.start()
        await plain.send_keys("sleep 30; echo LATE-$((6 * 7))\n", min_timeout_sec=0.1)
        assert "LATE-42" not in await plain.incremental_output()
    finally:
        await box.stop(delete=True)
