"""Adversarial probes, part 2: processes, network, storage, transfers and the verifier. Each probe
runs in a real LocalSandbox (or a real Harbor trial); the host must be unchanged afterwards."""

from __future__ import annotations

import contextlib
import os
import subprocess
import textwrap
from pathlib import Path

import pytest
from containment import HostState, LoopbackServer, marker
from harbor.models.trial.config import AgentConfig
from sandbox_helpers import processes_with, started

from modularrsi.sandbox import SandboxLimitExceeded
from modularrsi.tasks.trials import environment_config, run_trial

CONNECT = ("python3 -c \"import socket; s=socket.socket(); s.settimeout(2); s.connect(('{host}', {port})); "
           "print('connected')\"")


@pytest.fixture
def host(tmp_path):
    """A sibling trial folder with a secret, and the host state to compare against."""
    other = tmp_path / "trials" / "other"
    other.mkdir(parents=True)
    (other / "secret.txt").write_text("sibling secret\n")
    (other / "one.txt").write_text("1\n")
    return other, HostState.take(other)


@pytest.mark.parametrize("network", ["public", "no-network"])
async def test_host_loopback_services_are_unreachable(task_factory, tmp_path, network):
    server = LoopbackServer()
    box = await started(task_factory(), tmp_path / "t", network=network)
    try:
        for address in ("127.0.0.1", "10.0.2.2", "localhost"):
            result = await box.exec(CONNECT.format(host=address, port=server.port), timeout_sec=30)
            assert "connected" not in result.stdout, address
    finally:
        await box.stop(delete=True)
        server.close()
    assert server.accepted == 0


STORAGE_TOML = """\
[environment]
workdir = "/app"
network_mode = "no-network"
memory_mb = 512
pids_max = 128
storage_mb = 64
"""


async def test_writes_past_storage_mb_fail_and_end_with_a_limit_error(task_factory, tmp_path):
    box = await started(task_factory(toml=STORAGE_TOML), tmp_path / "t", keep_files=True)
    try:
        with pytest.raises(SandboxLimitExceeded, match="storage limit of 64 MB"):
            await box.exec("dd if=/dev/zero of=/app/big bs=1M count=200", timeout_sec=60)
        rest = await box.exec("for d in /tmp /var /run /root /logs/agent /logs/verifier; do "
                              "head -c 2000000 /dev/zero > $d/more || echo full $d; done")
        assert rest.stdout.count("full") == 6, rest.stdout
    finally:
        await box.stop(delete=True)
    used = sum(p.stat().st_blocks * 512 for p in (tmp_path / "t").rglob("*") if p.is_file())
    assert used < 80 * 1024 * 1024, f"the trial took {used} bytes of host disk"


async def test_tests_upload_does_not_follow_planted_symlinks(task_factory, tmp_path, host):
    other, before = host
    box = await started(task_factory(), tmp_path / "trials" / "t")
    try:
        await box.exec(f"ln -s {other}/secret.txt /tests/test.sh; ln -s {other} /tests/sub")
        src = tmp_path / "tests-src"
        (src / "sub").mkdir(parents=True)
        (src / "test.sh").write_text("overwritten\n")
        (src / "sub" / "secret.txt").write_text("overwritten\n")
        await box.upload_dir(src, "/tests")
        assert (await box.exec("cat /tests/test.sh")).stdout == "overwritten\n"
    finally:
        await box.stop(delete=True)
    before.assert_same(other)


async def test_upload_through_a_symlinked_path_component_stays_inside(task_factory, tmp_path, host):
    other, before = host
    box = await started(task_factory(), tmp_path / "trials" / "t")
    try:
        await box.exec(f"ln -s {other} /app/sub; ln -s {other}/secret.txt /app/file")
        src = tmp_path / "payload.txt"
        src.write_text("payload\n")
        for target in ("/app/sub/secret.txt", "/app/file", "/app/sub/new.txt"):
            with contextlib.suppress(RuntimeError, OSError):
                await box.upload_file(src, target)
    finally:
        await box.stop(delete=True)
    before.assert_same(other)
    assert not (other / "new.txt").exists()


async def test_downloads_bring_back_no_link_to_host_files(task_factory, tmp_path, host):
    other, before = host
    box = await started(task_factory(), tmp_path / "trials" / "t")
    dest = tmp_path / "down"
    try:
        await box.exec(f"ln -s {other}/secret.txt /app/leak; ln -s / /app/rootlink; echo ok > /app/plain; "
                       f"ln -s {other}/secret.txt /logs/agent/trajectory.json")
        await box.download_dir("/app", dest)
        with contextlib.suppress(RuntimeError, OSError):
            await box.download_file("/app/leak", tmp_path / "leak.txt")
    finally:
        await box.stop(delete=True)
    found = {p.name: p for p in dest.rglob("*")}
    assert not any(p.is_symlink() for p in found.values()), found
    assert (dest / "plain").read_text() == "ok\n"
    leaked = tmp_path / "leak.txt"
    assert not leaked.exists() or "sibling secret" not in leaked.read_text()
    before.assert_same(other)


async def test_planted_reward_and_agent_log_symlinks_reach_no_host_file(task_factory, tmp_path, host):
    """What Harbor does after each phase: copy /logs/* out unless mounted, then read the reward and
    write its own agent files on the host."""
    other, before = host
    box = await started(task_factory(), tmp_path / "trials" / "t")
    paths = box.trial_paths
    try:
        await box.exec(f"ln -sf {other}/one.txt /logs/verifier/reward.txt; "
                       f"ln -sf {other}/secret.txt /logs/agent/trajectory.json")
        for env_dir, host_dir in (("/logs/verifier", paths.verifier_dir), ("/logs/agent", paths.agent_dir)):
            if not box.is_path_mounted(env_dir, host_dir):
                await box.download_dir(env_dir, host_dir)
    finally:
        await box.stop(delete=True)
    reward = paths.reward_text_path
    assert not reward.is_symlink() and not (reward.exists() and reward.read_text() == "1\n")
    (paths.agent_dir / "trajectory.json").write_text("written by the host\n")
    before.assert_same(other)


async def test_agent_cannot_overwrite_logs_the_host_wrote(task_factory, tmp_path):
    """The harness writes the trajectory on the host; what the agent writes under /logs/agent is
    copied out next to it, never over it."""
    box = await started(task_factory(), tmp_path / "t")
    agent_dir = box.trial_paths.agent_dir
    try:
        (agent_dir / "trajectory.json").write_text('{"steps": "host"}')
        await box.exec("echo '{\"steps\": \"forged\"}' > /logs/agent/trajectory.json; echo x > /logs/agent/extra.txt")
        if not box.is_path_mounted("/logs/agent", agent_dir):
            await box.download_dir("/logs/agent", agent_dir)
    finally:
        await box.stop(delete=True)
    assert (agent_dir / "trajectory.json").read_text() == '{"steps": "host"}'
    assert (agent_dir / "extra.txt").read_text() == "x\n"


async def test_host_processes_cannot_be_killed_or_traced(task_factory, tmp_path):
    name = marker()
    victim = subprocess.Popen(["bash", "-c", f"exec -a {name} sleep 120"])
    box = await started(task_factory(), tmp_path / "t")
    try:
        await box.exec(f"kill -9 {victim.pid}; kill -9 -1; unshare -Urpf --mount-proc kill -9 {victim.pid}; "
                       f"python3 -c \"import ctypes; ctypes.CDLL(None).ptrace(16, {victim.pid}, 0, 0)\"; "
                       f"nsenter -t 1 -U -p -- kill -9 {victim.pid}", timeout_sec=30)
        assert victim.poll() is None, "a host process was killed from inside the sandbox"
        status = Path(f"/proc/{victim.pid}/status").read_text()
        assert "TracerPid:\t0" in status
    finally:
        await box.stop(delete=True)
        victim.kill()
        victim.wait()


async def test_mknod_gives_no_access_to_host_devices(task_factory, tmp_path):
    box = await started(task_factory(), tmp_path / "t")
    try:
        disk = os.stat("/").st_dev
        major, minor = os.major(disk), os.minor(disk)
        result = await box.exec(f"mknod /tmp/d b {major} {minor} && head -c 512 /tmp/d | wc -c; "
                                f"unshare -Urm sh -c 'mknod /tmp/e b {major} {minor} && head -c 512 /tmp/e | wc -c'")
        assert "512" not in result.stdout
    finally:
        await box.stop(delete=True)


#: Every way known to move a shell into the host's root cgroups (the last one worked before the
#: sandbox had its own user namespace: joining bwrap's init's namespaces as their owner).
ESCAPE_CGROUPS = ("for f in /sys/fs/cgroup/*/cgroup.procs /sys/fs/cgroup/cgroup.procs; do echo $$ > $f; done "
                  "2>/dev/null; "
                  'nsenter -t 1 -U -m -- sh -c "for c in /sys/fs/cgroup /sys/fs/cgroup/pids /sys/fs/cgroup/memory; '
                  "do mount -o remount,rw,bind \\$c; done; for f in /sys/fs/cgroup/*/cgroup.procs; do echo $$ > \\$f; "
                  'done" 2>/dev/null; ')


async def test_fork_bomb_after_a_cgroup_escape_stays_under_pids_max(task_factory, tmp_path):
    name = marker()
    box = await started(task_factory(), tmp_path / "t")
    counts = []
    try:
        with pytest.raises((SandboxLimitExceeded, RuntimeError)):
            await box.exec(ESCAPE_CGROUPS + f"for i in $(seq 300); do (exec -a {name} sleep 60) & done; "
                           "sleep 1; echo started", timeout_sec=60)
        counts.append(len(processes_with(name)))
    finally:
        await box.stop(delete=True)
    assert counts[0] <= 128
    assert processes_with(name) == [], "a process of the sandbox survived its stop"


async def test_memory_above_the_limit_after_a_cgroup_escape_is_killed(task_factory, tmp_path):
    box = await started(task_factory(), tmp_path / "t")
    try:
        with pytest.raises(SandboxLimitExceeded, match="memory limit of 512 MB"):
            await box.exec(ESCAPE_CGROUPS + "python3 -c 'b = bytearray(900 * 1024**2); b[::4096] = "
                           "b\"x\" * len(b[::4096]); print(len(b))'", timeout_sec=60)
    finally:
        await box.stop(delete=True)


DAEMON_SOLVE = textwrap.dedent("""\
    #!/bin/bash
    nohup setsid bash -c 'while :; do echo 1 > /logs/verifier/reward.txt; mkdir -p /tests;
      printf "#!/bin/bash\\necho 1 > /logs/verifier/reward.txt\\n" > /tests/test.sh 2>/dev/null; sleep 0.02; done' \\
      >/dev/null 2>&1 &
    sleep 0.5
    """)
ZERO_TEST = "#!/bin/bash\necho 0 > /logs/verifier/reward.txt\nsleep 1\n"


async def test_agent_daemon_cannot_rewrite_the_reward_during_verification(task_factory, tmp_path):
    task = task_factory(solve_sh=DAEMON_SOLVE, test_sh=ZERO_TEST)
    for i in range(2):
        outcome = await run_trial(task, AgentConfig(name="oracle"), tmp_path / "trials", environment_config("local"),
                                  f"daemon-{i}")
        assert outcome.exception is None, outcome.exception
        assert outcome.reward == 0.0
