"""launch: the first process of a LocalSandbox. A standalone program (stdlib only), never imported.

    python -I -S launch.py SPEC_JSON

Run as host root, already inside the sandbox's cgroups. It:

1. enters a private mount namespace (nothing it mounts is seen by the host, and every mount dies
   with the sandbox) and loop-mounts the sandbox's disk image (``spec["image"]``, ext4, the storage
   cap) at ``spec["mountpoint"]`` (over a host directory, in this namespace only); creates
   ``spec["dirs"]`` in it, owned by the sandbox's root, and ``spec["files"]`` (relative path ->
   text), owned by the host's root (read-only inside);
2. enters a new user namespace and prints ``userns``; the orchestrator (host root, in the parent
   namespace) then writes ``/proc/PID/uid_map`` and ``gid_map`` (sandbox 0..N-1 -> host
   ``uid_base``..) and sends one line on stdin;
3. becomes the sandbox's root (host ``uid_base``: real root only over files it owns), forbids user
   namespaces inside this one (``user.max_user_namespaces`` = 0 in it: no nested "root"), and execs
   bubblewrap (``spec["argv"]``, which creates the remaining namespaces) with an empty environment,
   so nothing of the orchestrator's environment is visible inside; bubblewrap reads its arguments
   from a memfd (``--args``), so its command line, which the sandbox's init keeps, shows no host path.

Exit 111 with a message on stderr when a step fails.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"


def mount_disk(spec: dict) -> None:
    os.unshare(os.CLONE_NEWNS)
    subprocess.run(["mount", "--make-rprivate", "/"], check=True)
    subprocess.run(["mount", "-o", "loop,nosuid,nodev", "-t", "ext4", spec["image"], spec["mountpoint"]],
                   check=True, stdout=subprocess.DEVNULL)
    base = spec["uid_base"]
    for rel in spec["dirs"]:
        path = spec["mountpoint"]
        for part in rel.strip("/").split("/"):
            path = os.path.join(path, part)
            if not os.path.isdir(path):
                os.mkdir(path, 0o755)
                os.chown(path, base, base)
    os.chmod(os.path.join(spec["mountpoint"], "fs/tmp"), 0o1777)
    for rel, text in spec["files"].items():
        path = os.path.join(spec["mountpoint"], rel)
        os.makedirs(os.path.dirname(path), mode=0o755, exist_ok=True)
        with open(path, "w") as f:
            f.write(text)
        os.chmod(path, 0o644)


def become_sandbox_root() -> None:
    os.unshare(os.CLONE_NEWUSER)
    sys.stdout.write("userns\n")
    sys.stdout.flush()
    if sys.stdin.readline() != "go\n":
        raise OSError("no user namespace mapping")
    null = os.open("/dev/null", os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    os.setgroups([])
    os.setresgid(0, 0, 0)
    os.setresuid(0, 0, 0)
    with open("/proc/sys/user/max_user_namespaces", "w") as f:  # no nested user namespaces inside
        f.write("0")


def main() -> None:
    spec = json.loads(sys.argv[1])
    try:
        mount_disk(spec)
        become_sandbox_root()
        bwrap, options, command = spec["argv"][0], spec["argv"][1:spec["argv"].index("--")], \
            spec["argv"][spec["argv"].index("--"):]
        args = os.memfd_create("bwrap-args", 0)
        os.write(args, b"".join(a.encode() + b"\0" for a in options))
        os.lseek(args, 0, os.SEEK_SET)
        os.set_inheritable(args, True)
        os.execve(bwrap, [bwrap, "--args", str(args), *command], {"PATH": PATH})
    except (OSError, subprocess.CalledProcessError) as exc:
        sys.stderr.write(f"launch: {exc}\n")
        sys.exit(111)


if __name__ == "__main__":
    main()
