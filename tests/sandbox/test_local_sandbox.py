"""LocalSandbox, exercised for real: bubblewrap namespaces, cgroups, binds, process cleanup."""

from __future__ import annotations

import asyncio
import os
import signal
import socket
import subprocess
import sys
import uuid
from pathlib import Path

import pytest
from harbor.environments.base import SandboxBuildFailedError
from sandbox_helpers import make_sandbox, processes_with, started

from modularrsi.sandbox import SandboxLimitExceeded


async def test_only_loopback_and_host_loopback_unreachable(task_factory, tmp_path):
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen()
    port = server.getsockname()[1]
    box = await started(task_factory(), tmp_path / "t")
    try:
        interfaces = await box.exec("tail -n +3 /proc/net/dev | cut -d: -f1")
        assert interfaces.stdout.split() == ["lo"]
        probe = (f"python3 -c \"import socket; s=socket.socket(); s.settimeout(2); "
                 f"s.connect(('127.0.0.1', {port}))\"")
        result = await box.exec(probe)
        assert result.return_code != 0 and "Connection refused" in result.stderr
    finally:
        await box.stop(delete=True)
        server.close()


async def test_public_network_has_its_own_interface_and_never_the_host_loopback(task_factory, tmp_path):
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen()
    port = server.getsockname()[1]
    box = await started(task_factory(), tmp_path / "t", network="public")
    try:
        interfaces = await box.exec("tail -n +3 /proc/net/dev | cut -d: -f1")
        assert sorted(interfaces.stdout.split()) == ["lo", "tap0"]
        for host in ("127.0.0.1", "10.0.2.2"):  # the host's loopback, and slirp's gateway to it
            probe = (f"python3 -c \"import socket; s=socket.socket(); s.settimeout(2); "
                     f"s.connect(('{host}', {port}))\"")
            result = await box.exec(probe)
            assert result.return_code != 0, host
            assert "Connection refused" in result.stderr or "Network is unreachable" in result.stderr, host
    finally:
        await box.stop(delete=True)
        server.close()


async def test_writes_outside_allowed_dirs_fail_and_stay_in_the_sandbox(task_factory, tmp_path):
    box = await started(task_factory(), tmp_path / "t")
    try:
        for path in ("/usr/evil", "/etc/evil", "/opt/evil", "/evil", "/sys/fs/cgroup/pids/evil"):
            result = await box.exec(f"touch {path}")
            assert result.return_code != 0, path
            assert "Read-only file system" in result.stderr or "Permission denied" in result.stderr
        assert (await box.exec("mount -o remount,rw /usr")).return_code != 0
        ok = await box.exec("echo a > /app/a && echo b > /tmp/b && echo c > ~/c && echo d > /logs/agent/d")
        assert ok.return_code == 0, ok.stderr
        await box.download_dir("/app", tmp_path / "app")
        await box.download_dir("/logs/agent", tmp_path / "agent")
        await box.download_file("/tmp/b", tmp_path / "b")
    finally:
        await box.stop(delete=True)
    assert not Path("/usr/evil").exists() and not Path("/evil").exists()
    assert (tmp_path / "app" / "a").read_text() == "a\n"
    assert (tmp_path / "b").read_text() == "b\n"
    assert (tmp_path / "agent" / "d").read_text() == "d\n"
    assert not (tmp_path / "t" / "agent" / "d").exists(), "nothing the sandbox writes lands on the host by itself"


async def test_processes_persist_between_execs_and_die_on_stop(task_factory, tmp_path):
    marker = f"marker-{uuid.uuid4().hex}"
    box = await started(task_factory(), tmp_path / "t")
    try:
        await box.exec(f"tmux -S /tmp/tm new-session -d -s main && "
                       f"tmux -S /tmp/tm send-keys -t main 'sleep 1000 # {marker}' Enter")
        await box.exec(f"setsid nohup bash -c 'exec -a {marker} sleep 1000' >/dev/null 2>&1 &")
        for _ in range(200):  # C-c interrupts the sleep only once the pane's shell has started it
            pane = await box.exec("tmux -S /tmp/tm list-panes -t main -F '#{pane_current_command}'")
            if pane.stdout.strip() == "sleep":
                break
            await asyncio.sleep(0.05)
        await box.exec("tmux -S /tmp/tm send-keys -t main C-c 'echo hi > /app/from_tmux' Enter")
        for _ in range(50):
            if (await box.exec("cat /app/from_tmux")).stdout == "hi\n":
                break
            await asyncio.sleep(0.05)
        assert (await box.exec("cat /app/from_tmux")).stdout == "hi\n"
        assert processes_with(marker), "the background process should be running"
    finally:
        await box.stop(delete=True)
    assert processes_with(marker) == []
    assert not (tmp_path / "t" / "sandbox").exists()


async def test_stop_returns_while_a_process_of_the_sandbox_holds_the_launchers_pipe(task_factory, tmp_path):
    """A process in the sandbox's cgroup but outside the launcher's process group keeps the pipe the
    orchestrator read the start from open: stop kills the cgroup before it waits (asyncio's wait returns
    only once every pipe of the process is closed; a sandbox init that outlived its monitor once hung
    the suite there)."""
    marker = f"marker-{uuid.uuid4().hex}"
    box = await started(task_factory(), tmp_path / "t")
    holder = None
    try:
        if box._enforcer.kind != "cgroup":
            pytest.skip("no cgroups here: nothing outside the sandbox's pid namespace can be put in it")
        pipe = os.readlink(f"/proc/{box._child_pid}/fd/1")
        code = f"import time; f = open('/proc/{box._child_pid}/fd/1', 'wb'); time.sleep(1000)  # {marker}"
        holder = subprocess.Popen(box._enforcer.wrap([sys.executable, "-c", code]), start_new_session=True)
        while pipe not in {os.readlink(f"/proc/{holder.pid}/fd/{fd}") for fd in os.listdir(f"/proc/{holder.pid}/fd")}:
            assert holder.poll() is None, "the holder could not open the pipe"
            await asyncio.sleep(0.05)
    finally:
        try:
            await asyncio.wait_for(box.stop(delete=True), 600)  # a guard against hanging, not a speed limit
        finally:
            if holder is not None and holder.poll() is None:
                holder.kill()
    assert holder.wait() == -signal.SIGKILL  # killed with the sandbox's cgroup
    assert processes_with(marker) == []


async def test_background_server_does_not_block_exec(task_factory, tmp_path):
    box = await started(task_factory(), tmp_path / "t")
    try:
        start = await box.exec("python3 -m http.server 8765 --bind 127.0.0.1 & echo started", timeout_sec=20)
        assert "started" in start.stdout  # the exec returned with the server still running
        fetched = await box.exec("for i in $(seq 150); do code=$(curl -s -o /dev/null -w '%{http_code}' "
                                 "http://127.0.0.1:8765/) && break; sleep 0.1; done; echo $code", timeout_sec=30)
        assert fetched.stdout.strip() == "200"  # the server started before it was asked (any load)
    finally:
        await box.stop(delete=True)


async def test_timeout_kills_the_command(task_factory, tmp_path):
    box = await started(task_factory(), tmp_path / "t")
    try:
        with pytest.raises(RuntimeError, match="timed out after 1 seconds"):
            await box.exec("sleep 30", timeout_sec=1)
        assert (await box.exec("echo alive")).stdout == "alive\n"
    finally:
        await box.stop(delete=True)


async def test_memory_hog_ends_only_its_own_sandbox(task_factory, tmp_path):
    hog = await started(task_factory(), tmp_path / "hog")
    neighbour = await started(task_factory(), tmp_path / "ok")
    try:
        with pytest.raises(SandboxLimitExceeded, match="memory limit of 512 MB exceeded"):
            await hog.exec("python3 -c 'b = bytearray(4 * 1024**3); print(len(b))'", timeout_sec=60)
        assert (await neighbour.exec("python3 -c 'print(sum(range(10)))'")).stdout == "45\n"
    finally:
        await hog.stop(delete=True)
        await neighbour.stop(delete=True)


async def test_fork_bomb_ends_only_its_own_sandbox(task_factory, tmp_path):
    bomb = await started(task_factory(), tmp_path / "bomb")
    neighbour = await started(task_factory(), tmp_path / "ok")
    try:
        with pytest.raises((SandboxLimitExceeded, RuntimeError)) as err:
            await bomb.exec("bomb() { bomb | bomb & }; bomb; sleep 3", timeout_sec=10)
        assert "process limit of 128 reached" in str(err.value)
        assert (await neighbour.exec("echo fine")).stdout == "fine\n"
    finally:
        await bomb.stop(delete=True)
        await neighbour.stop(delete=True)
    assert (await asyncio.create_subprocess_exec("true")).pid > 0


async def test_eight_parallel_sandboxes_do_not_interfere(task_factory, tmp_path):
    task = task_factory()
    boxes = await asyncio.gather(*(started(task, tmp_path / f"t{i}") for i in range(8)))
    try:
        script = ("echo {i} > /app/id && echo {i} > /tmp/id && "
                  "(python3 -m http.server 8080 --bind 127.0.0.1 >/dev/null 2>&1 &) && "
                  "for _ in $(seq 250); do curl -s -o /dev/null http://127.0.0.1:8080/ && break; sleep 0.1; done; "
                  "curl -s -o /dev/null -w '%{{http_code}}' http://127.0.0.1:8080/ && cat /app/id /tmp/id")
        results = await asyncio.gather(*(b.exec(script.format(i=i), timeout_sec=30) for i, b in enumerate(boxes)))
        for i, result in enumerate(results):
            assert result.stdout == f"200{i}\n{i}\n", result.stderr
    finally:
        await asyncio.gather(*(b.stop(delete=True) for b in boxes))


async def test_tests_and_solution_start_empty_and_uploads_work(task_factory, tmp_path):
    box = await started(task_factory(), tmp_path / "t")
    try:
        assert (await box.exec("ls -A /tests /solution")).stdout.split() == ["/solution:", "/tests:"]
        src = tmp_path / "up"
        src.mkdir()
        (src / "f.txt").write_text("payload")
        await box.upload_dir(src, "/tests")
        assert (await box.exec("cat /tests/f.txt")).stdout == "payload"
        with pytest.raises(PermissionError, match="outside the writable paths"):
            await box.upload_file(src / "f.txt", "/usr/local/f.txt")
        with pytest.raises(PermissionError, match="outside the writable paths"):  # no climbing out of a bind
            await box.upload_file(src / "f.txt", "/tests/../../etc/f.txt")
        await box.upload_file(src / "f.txt", "rel/../g.txt")  # relative to the workdir
        assert (await box.exec("cat /app/g.txt")).stdout == "payload"
        await box.download_file("/tests/f.txt", tmp_path / "down.txt")
        assert (tmp_path / "down.txt").read_text() == "payload"
    finally:
        await box.stop(delete=True)


async def test_dockerfile_copy_env_and_run_apply_at_start(task_factory, tmp_path):
    task = task_factory(
        dockerfile="FROM debian:bookworm-slim\nRUN apt-get update && apt-get install -y bash coreutils\n"
                   "WORKDIR /app\nENV GREETING=hi\nCOPY data/ /app/data/\nCOPY run.sh ./\n"
                   "RUN cat data/x.txt > copied.txt && echo $GREETING >> copied.txt\n",
        files={"environment/data/x.txt": "x\n", "environment/run.sh": "echo run\n"})
    box = await started(task, tmp_path / "t")
    try:
        assert (await box.exec("cat copied.txt; echo $GREETING; cat run.sh")).stdout == "x\nhi\nhi\necho run\n"
    finally:
        await box.stop(delete=True)


@pytest.mark.parametrize("dockerfile, needle", [
    ("FROM debian\nRUN apt-get install -y no-such-package-xyz\n", "no-such-package-xyz not installed"),
    ("FROM alpine:3.19\n", "base image 'alpine:3.19' does not map"),
    ("FROM debian\nWORKDIR /usr/src/app\n", "WORKDIR /usr/src/app lies inside the host's read-only /usr"),
    # the host's python3 plays a python base only when the versions agree (else --env auto builds the image)
    ("FROM python:3.99-slim\n", r"asks for CPython 3\.99, and this host's python3 is"),
    ("FROM python:latest\n", r"asks for CPython \(no version named\)"),
    ("FROM gcc:99.1.0-bookworm\n", r"asks for GCC 99\.1\.0, and this host's gcc is"),
])
async def test_unsupported_environments_are_refused_before_start(task_factory, tmp_path, dockerfile, needle):
    toml = "[environment]\nnetwork_mode = \"no-network\"\n"
    with pytest.raises(SandboxBuildFailedError, match=needle):
        make_sandbox(task_factory(dockerfile=dockerfile, toml=toml), tmp_path / "t")


async def test_failing_run_step_is_refused_at_start_with_its_line(task_factory, tmp_path):
    task = task_factory(dockerfile="FROM debian\nWORKDIR /app\nRUN touch /usr/lib/x\n")
    box = make_sandbox(task, tmp_path / "t")
    with pytest.raises(SandboxBuildFailedError, match=r"Dockerfile:3: RUN failed with exit 1: .*Read-only"):
        await box.start(force_build=False)
    assert box._proc is None


async def test_commands_can_run_as_an_unprivileged_user(task_factory, tmp_path):
    box = await started(task_factory(), tmp_path / "t")
    try:
        result = await box.exec("id -u; touch /app/x", user="nobody")
        assert result.stdout.split()[0] == "65534"
        assert "Permission denied" in result.stderr
    finally:
        await box.stop(delete=True)


ORCHESTRATOR = """
import asyncio, os, signal, sys
sys.path.insert(0, sys.argv[3])
from pathlib import Path
from sandbox_helpers import started

async def main():
    box = await started(Path(sys.argv[1]), Path(sys.argv[2]))
    print(os.getpid(), flush=True)
    if len(sys.argv) > 4:
        os.kill(os.getpid(), signal.SIGKILL)  # as `kill -9` of an orchestrator mid-trial
    await box.stop(delete=True)

asyncio.run(main())
"""


@pytest.mark.skipif(not os.access("/sys/fs/cgroup/pids", os.W_OK), reason="needs writable v1 cgroups")
def test_cgroups_of_an_orchestrator_killed_with_sigkill_are_reaped_by_the_next_one(task_factory, tmp_path):
    from testutil import REPO

    from modularrsi.sandbox.limits import _own_cgroup

    support, task = str(REPO / "tests" / "support"), task_factory()
    base = _own_cgroup("pids") / "modularrsi"
    killed = subprocess.run([sys.executable, "-c", ORCHESTRATOR, str(task), str(tmp_path / "a"), support, "kill"],
                            capture_output=True, text=True, timeout=300)
    assert killed.returncode == -signal.SIGKILL, killed.stderr[-2000:]
    dead = killed.stdout.split()[0]
    assert [p for p in base.iterdir() if p.name.startswith(f"{dead}.")], "the killed orchestrator left no cgroup"
    done = subprocess.run([sys.executable, "-c", ORCHESTRATOR, str(task), str(tmp_path / "b"), support],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    for controller in ("pids", "memory", "cpu"):
        left = [p.name for p in (_own_cgroup(controller) / "modularrsi").iterdir()
                if p.name.startswith(f"{dead}.")]
        assert not left, f"{controller}: cgroups of a dead orchestrator remain: {left}"
