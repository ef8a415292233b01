"""Adversarial probes, part 1: a trial tries to change or read the host through mounts, namespaces,
cgroups, sysctls and secrets. Each probe runs in a real LocalSandbox; the host must be unchanged."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from containment import HostState, cgroup_of, marker
from sandbox_helpers import processes_with, started


@pytest.fixture
async def probe(task_factory, tmp_path):
    """(sandbox, check): ``check(name)`` asserts the host is unchanged and ``name`` appeared nowhere."""
    other = tmp_path / "trials" / "other"
    other.mkdir(parents=True)
    (other / "secret.txt").write_text("sibling secret\n")
    before = HostState.take(other)
    box = await started(task_factory(), tmp_path / "trials" / "t")
    try:
        yield box, lambda name="": before.assert_same(other, name)
    finally:
        await box.stop(delete=True)
    before.assert_same(other)


REMOUNT_WRITES = {
    "etc": "mount -o remount,rw,bind /etc; mount -o remount,rw /etc; touch /etc/{m}",
    "usr": "mount -o remount,rw,bind /usr; mount -o remount,rw /usr; touch /usr/{m} /usr/bin/{m}",
    "root": "mount -o remount,rw /; mount -o remount,rw,bind /; touch /{m} /etc/{m}; "
            "nsenter -t 1 -U -m -- sh -c 'mount -o remount,rw /; touch /{m}; mount -o remount,rw,bind /usr; "
            "touch /usr/{m}'",
    "unshare": "unshare -Urm sh -c 'mount -o remount,rw,bind /etc; touch /etc/{m}; "
               "mount -o remount,rw,bind /usr; touch /usr/{m}'",
    "setns_init": "nsenter -t 1 -U -m -- sh -c 'mount -o remount,rw,bind /etc; touch /etc/{m}'; "
                  "nsenter -t 1 -m -- sh -c 'mount -o remount,rw,bind /etc; touch /etc/{m}'",
    "chroot": "for w in 'unshare -Urm' 'nsenter -t 1 -U -m --'; do $w python3 -c \"import os; "
              "os.makedirs('/tmp/j', exist_ok=True); os.chroot('/tmp/j'); [os.chdir('..') for _ in range(64)]; "
              "os.chroot('.'); os.system('mount -o remount,rw,bind /etc; touch /etc/{m}')\"; done",
    "mount_tmpfs_proc": "mount -t tmpfs none /etc; touch /etc/{m}; unshare -Urm sh -c "
                        "'mount -t tmpfs none /usr/local && touch /usr/local/{m}; mount -t proc proc /proc'; "
                        "nsenter -t 1 -U -m -- sh -c 'mount -t proc proc /mnt; mount -t tmpfs none /tmp; "
                        "echo 3 > /mnt/sys/vm/swappiness; mount -o remount,rw,bind /usr; touch /usr/local/{m}'",
}


@pytest.mark.parametrize("attack", sorted(REMOUNT_WRITES))
async def test_remount_and_namespace_tricks_cannot_write_the_host(probe, attack):
    box, check = probe
    name = marker()
    await box.exec(REMOUNT_WRITES[attack].format(m=name), timeout_sec=30)
    check(name)


async def test_cgroup_tree_cannot_be_remounted_or_written(probe):
    box, check = probe
    name = marker()
    attack = (f"mount -o remount,rw,bind /sys/fs/cgroup; mount -o remount,rw,bind /sys/fs/cgroup/pids; "
              f"mount -o remount,rw,bind /sys/fs/cgroup/memory; mkdir /sys/fs/cgroup/pids/{name} "
              f"/sys/fs/cgroup/memory/{name}; echo max > /sys/fs/cgroup/pids/pids.max")
    await box.exec(f"{attack}; nsenter -t 1 -U -m -- sh -c '{attack}'", timeout_sec=30)
    check(name)
    pids_dir = box._enforcer.dirs.get("pids", box._enforcer.dirs.get("unified"))
    assert (pids_dir / "pids.max").read_text().strip() == "128"


async def test_trial_cannot_move_itself_into_the_root_cgroups(probe):
    box, check = probe
    name = marker()
    await box.exec("for f in /sys/fs/cgroup/*/cgroup.procs /sys/fs/cgroup/cgroup.procs; do "
                   "echo $$ > $f; done 2>/dev/null; "
                   "nsenter -t 1 -U -m -- sh -c \"mount -o remount,rw,bind /sys/fs/cgroup/pids; "
                   "mount -o remount,rw,bind /sys/fs/cgroup/memory; echo $$ > /sys/fs/cgroup/pids/cgroup.procs; "
                   "echo $$ > /sys/fs/cgroup/memory/cgroup.procs\"; "
                   f"(exec -a {name} sleep 60) & sleep 0.2", timeout_sec=30)
    pids = processes_with(name)
    assert pids, "the probe's process should be running"
    for pid in pids:
        lines = cgroup_of(pid).splitlines()  # hierarchy-id:controllers:path
        limiting = [ln for ln in lines if {"pids", "memory"} & set(ln.split(":")[1].split(","))]
        for line in limiting or [ln for ln in lines if ln.startswith("0::")]:
            assert "/modularrsi/" in line, line
    check(name)


async def test_proc_sys_and_sysrq_are_not_writable(probe):
    box, check = probe
    await box.exec("echo 7 > /proc/sys/vm/swappiness; sysctl -w vm.swappiness=3; "
                   "unshare -Urm sh -c 'mount -o remount,rw /proc/sys; echo 9 > /proc/sys/vm/swappiness'; "
                   "nsenter -t 1 -U -m -- sh -c 'mount -o remount,rw,bind /proc/sys; "
                   "echo 8 > /proc/sys/vm/swappiness'; "
                   "echo 1 > /proc/sys/net/ipv4/ip_forward; echo h > /proc/sysrq-trigger", timeout_sec=30)
    check()


async def test_init_environment_holds_no_orchestrator_secret(task_factory, tmp_path, monkeypatch):
    secret = marker()
    monkeypatch.setenv("PROBE_API_KEY", secret)
    box = await started(task_factory(), tmp_path / "t")
    try:
        result = await box.exec("cat /proc/1/environ /proc/2/environ /proc/self/environ | tr '\\0' '\\n'; "
                                "for p in /proc/[0-9]*; do tr '\\0' '\\n' < $p/environ; done; env")
        assert secret not in result.stdout
        assert "/proc/1" not in result.stderr or "Permission denied" not in result.stderr
    finally:
        await box.stop(delete=True)


@pytest.mark.parametrize("path", ["/etc/shadow", "/etc/gshadow", "/etc/shadow-", "/etc/gshadow-"])
async def test_host_password_files_are_not_readable(probe, path):
    box, _ = probe
    if not os.path.exists(path):
        pytest.skip(f"{path} does not exist on this host")
    host = Path(path).read_text()
    result = await box.exec(f"cat {path}; unshare -Urm cat {path}; nsenter -t 1 -U -- cat {path}")
    assert host.strip() == "" or host.splitlines()[0] not in result.stdout


async def test_ssh_host_keys_are_not_readable(task_factory, tmp_path):
    """A host key planted for the test (this host may have none): neither listed nor readable."""
    key = Path(f"/etc/ssh/ssh_host_{marker()}_key")
    key.parent.mkdir(exist_ok=True)
    key.write_text("-----BEGIN OPENSSH PRIVATE KEY-----\nprobe\n")
    key.chmod(0o600)
    try:
        box = await started(task_factory(), tmp_path / "t")
        try:
            result = await box.exec(f"cat {key}; ls /etc/ssh; unshare -Urm cat {key}; nsenter -t 1 -U -- cat {key}")
        finally:
            await box.stop(delete=True)
    finally:
        key.unlink()
    assert "PRIVATE KEY" not in result.stdout and key.name not in result.stdout


async def test_host_var_root_and_work_are_not_listed(probe, tmp_path):
    box, _ = probe
    listing = await box.exec("ls -A /var /var/log /var/cache /root /work /run 2>&1; ls -A /var/lib")
    assert "dpkg.log" not in listing.stdout and "apt" not in listing.stdout.split()
    for host_name in (".pyenv", "wt-sandbox", "shared", "docker"):
        assert host_name not in listing.stdout.split(), host_name
    siblings = await box.exec(f"ls -A {tmp_path}/trials 2>&1; cat {tmp_path}/trials/other/secret.txt 2>&1")
    assert "sibling secret" not in siblings.stdout and "other" not in siblings.stdout.split()


async def test_no_nested_user_namespace_gives_a_new_root(probe):
    """Docker's seccomp profile refuses unshare(CLONE_NEWUSER); the sandbox's own limit does here."""
    box, check = probe
    result = await box.exec("unshare -Ur id -u; unshare -Urm --propagation private true; echo rc=$?")
    assert "rc=0" not in result.stdout and "0\n" not in result.stdout.splitlines(keepends=True)[:1]
    check()
