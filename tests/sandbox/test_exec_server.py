"""LocalSandbox's exec server, for real: many commands, concurrency, timeouts, cancellation, its death,
and the same observable semantics as the nsenter chain it replaces."""

from __future__ import annotations

import asyncio
import os
import signal
import uuid

import pytest
from sandbox_helpers import processes_with, started


async def test_one_server_runs_many_commands(task_factory, tmp_path):
    box = await started(task_factory(), tmp_path / "t")
    try:
        server_pid = box._server.pid
        for i in range(300):
            result = await box.exec(f"echo {i}; echo e{i} >&2; exit {i % 7}")
            assert (result.stdout, result.stderr, result.return_code) == (f"{i}\n", f"e{i}\n", i % 7)
        assert box._server.pid == server_pid and box._server.usable
    finally:
        await box.stop(delete=True)
    assert not processes_with(f"execd.py {server_pid}")


async def test_concurrent_commands_run_side_by_side(task_factory, tmp_path):
    box = await started(task_factory(), tmp_path / "t")
    n = 12
    # each command waits (bounded) until all n have started: they can only all see n if they overlap
    script = ("mkdir -p /tmp/barrier && touch /tmp/barrier/{i} && "
              "for _ in $(seq 200); do [ $(ls /tmp/barrier | wc -l) -ge {n} ] && break; sleep 0.05; done; "
              "echo {i} $(ls /tmp/barrier | wc -l)")
    try:
        results = await asyncio.gather(*(box.exec(script.format(i=i, n=n), timeout_sec=60) for i in range(n)))
        assert [r.stdout for r in results] == [f"{i} {n}\n" for i in range(n)]
    finally:
        await box.stop(delete=True)


async def test_timeout_kills_only_that_commands_tree(task_factory, tmp_path):
    box = await started(task_factory(), tmp_path / "t")
    doomed, survivor = f"doomed-{uuid.uuid4().hex}", f"survivor-{uuid.uuid4().hex}"
    try:
        await box.exec(f"setsid bash -c 'exec -a {survivor} sleep 1000' >/dev/null 2>&1 &")
        neighbour = asyncio.create_task(box.exec("sleep 1.5; echo neighbour done", timeout_sec=30))
        with pytest.raises(RuntimeError, match="timed out after 1 seconds"):
            await box.exec(f"bash -c 'exec -a {doomed} sleep 1000' & bash -c 'exec -a {doomed} sleep 1000'",
                           timeout_sec=1)
        for _ in range(100):  # SIGKILLed processes of the group may take a moment to exit on a loaded host
            if not processes_with(doomed):
                break
            await asyncio.sleep(0.05)
        assert processes_with(doomed) == []
        assert processes_with(survivor), "a process outside the timed-out command must survive"
        assert (await neighbour).stdout == "neighbour done\n"
        assert (await box.exec("echo alive")).stdout == "alive\n"
    finally:
        await box.stop(delete=True)


async def test_cancelling_an_exec_kills_its_command(task_factory, tmp_path):
    box = await started(task_factory(), tmp_path / "t")
    marker = f"cancelled-{uuid.uuid4().hex}"
    try:
        running = asyncio.create_task(box.exec(f"touch /tmp/started; exec -a {marker} sleep 1000"))
        while (await box.exec("test -e /tmp/started")).return_code != 0:
            await asyncio.sleep(0.02)
        running.cancel()
        with pytest.raises(asyncio.CancelledError):
            await running
        assert processes_with(marker) == []
    finally:
        await box.stop(delete=True)


async def test_server_death_is_reported_and_later_commands_fall_back(task_factory, tmp_path, caplog):
    box = await started(task_factory(), tmp_path / "t")
    try:
        running = asyncio.create_task(box.exec("touch /tmp/started; sleep 1000"))
        while (await box.exec("test -e /tmp/started")).return_code != 0:
            await asyncio.sleep(0.02)
        os.kill(box._server.pid, signal.SIGKILL)
        with pytest.raises(RuntimeError, match=r"exec server .* exited.*outcome of this command is unknown"):
            await asyncio.wait_for(running, 30)
        result = await box.exec("echo still here; id -u", user="nobody")
        assert result.stdout == "still here\n65534\n"
        assert "using an nsenter chain" in caplog.text
    finally:
        await box.stop(delete=True)


async def test_server_is_invisible_inside_the_sandbox(task_factory, tmp_path):
    box = await started(task_factory(), tmp_path / "t")
    try:
        listing = (await box.exec("ps -eo args")).stdout
        assert "execd" not in listing and "sleep infinity" in listing
    finally:
        await box.stop(delete=True)


PROBE = r"""
echo "cwd=$(pwd) user=$(id -u):$(id -g) groups=$(id -G)"
grep -E '^(CapInh|CapPrm|CapEff|CapBnd|CapAmb|NoNewPrivs|SigIgn)' /proc/self/status
env | grep -v '^_=' | sort
echo "fds $(ls /proc/$$/fd | tr '\n' ' ') stdin $(readlink /proc/$$/fd/0)"
cat /proc/self/cgroup | grep -E 'pids|memory' | sed 's/[^/]*$//'
ulimit -a | md5sum
yes | head -1; echo "pipestatus ${PIPESTATUS[*]}"
"""


@pytest.mark.parametrize("user", [None, "nobody"])
async def test_server_and_nsenter_chain_give_commands_the_same_world(task_factory, tmp_path, user):
    task = task_factory()
    outputs = {}
    for server in (True, False):
        box = await started(task, tmp_path / f"s{server}" / "t", exec_server=server)  # same host name
        try:
            assert (box._server is not None) is server
            probe = await box.exec(PROBE, cwd="/tmp", env={"EXTRA": "x y"}, user=user)
            missing = await box.exec("pwd", cwd="/no/such/dir", user=user)
            outputs[server] = (probe.stdout, probe.stderr, probe.return_code, missing.return_code,
                               missing.stderr.strip().rsplit(": ", 1)[-1])
        finally:
            await box.stop(delete=True)
    assert outputs[True] == outputs[False]
    assert outputs[True][3] == 125 and outputs[True][4] == "No such file or directory"


async def test_a_dead_spawner_is_replaced(task_factory, tmp_path):
    from modularrsi.sandbox.exec_server import Spawner

    first = await started(task_factory(), tmp_path / "a")
    try:
        spawner = Spawner._current
        assert spawner is not None and first._server is not None
        os.kill(spawner._proc.pid, signal.SIGKILL)
        spawner._proc.wait()
        assert (await first.exec("echo served")).stdout == "served\n", "running servers outlive the spawner"
        second = await started(task_factory(), tmp_path / "b")
        try:
            assert second._server is not None and Spawner._current is not spawner
            assert (await second.exec("echo fresh")).stdout == "fresh\n"
        finally:
            await second.stop(delete=True)
    finally:
        await first.stop(delete=True)
