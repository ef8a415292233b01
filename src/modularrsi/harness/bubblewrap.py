"""The function runtime's sandbox (see :mod:`modularrsi.harness.runtime` for what it confines):
the directory its ``/rt`` shows (:func:`build_root`), the bubblewrap command line that starts the
zygote in it (:func:`zygote_argv`), and the thread that keeps it (:func:`spawn_kept`)."""

from __future__ import annotations

import atexit
import shutil
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

from modularrsi.util.bwrap import bwrap_argv, mirror

#: Modules copied into the sandbox's /rt: (package it is found in, path inside the package).
RUNTIME_FILES = (("modularrsi", "harness/protocols.py"), ("modularrsi", "harness/resources.py"),
                 ("modularrsi", "harness/steps.py"),
                 ("modularrsi", "harness/wire.py"), ("modularrsi", "harness/worker.py"),
                 ("modularrsi", "harness/zygote.py"),
                 ("modularrsi", "models/base.py"),
                 ("harbor", "agents/terminus_2/terminus_json_plain_parser.py"),
                 ("harbor", "agents/terminus_2/terminus_xml_plain_parser.py"),
                 ("harbor", "agents/terminus_2/templates"))
#: Packages that get an empty ``__init__.py`` in /rt (never the real one: harbor's imports LiteLLM).
RUNTIME_PACKAGES = ("modularrsi", "modularrsi/harness", "modularrsi/models", "harbor", "harbor/agents",
                    "harbor/agents/terminus_2")


def package_dir(name: str) -> Path:
    import importlib.util

    spec = importlib.util.find_spec(name)
    assert spec and spec.submodule_search_locations
    return Path(list(spec.submodule_search_locations)[0])


def build_root() -> Path:
    """A fresh directory holding what the sandbox's /rt shows (readable by any worker); removed at exit."""
    root = Path(tempfile.mkdtemp(prefix="modularrsi-rt-"))
    atexit.register(shutil.rmtree, root, True)
    for package in RUNTIME_PACKAGES:
        (root / package).mkdir(parents=True, exist_ok=True)
        (root / package / "__init__.py").write_text("")
    for package, rel in RUNTIME_FILES:
        source, target = package_dir(package) / rel, root / package / rel
        if source.is_dir():
            shutil.copytree(source, target)
        else:
            shutil.copyfile(source, target)
    for path in [root, *root.rglob("*")]:
        path.chmod(0o755 if path.is_dir() else 0o644)
    return root


def zygote_argv(root: Path, control_fd: int) -> list[str]:
    """The zygote's command line: only /usr, the host's library links, Python's prefix and /rt (read-only)
    and a private /tmp; the zygote runs without any capability but those it needs to drop to a worker's
    user (:mod:`modularrsi.harness.zygote`)."""
    prefix = Path(sys.base_prefix)
    mounts = ["--ro-bind", "/usr", "/usr"]
    for link in ("/lib", "/lib64", "/bin"):
        if Path(link).is_symlink() or Path(link).is_dir():
            mounts += mirror(link)
    for parent in reversed(prefix.parents[:-1]):
        mounts += ["--perms", "0755", "--dir", str(parent)]
    mounts += ["--ro-bind", str(prefix), str(prefix), "--ro-bind", str(root), "/rt", "--proc", "/proc",
               "--remount-ro", "/proc", "--dev", "/dev", "--perms", "0755", "--tmpfs", "/tmp", "--chdir", "/tmp"]
    zygote = [shutil.which("setpriv") or "/usr/bin/setpriv", "--clear-groups", "--inh-caps=-all",
              "--bounding-set=-all,+setuid,+setgid", "--no-new-privs",
              str(prefix / "bin" / f"python{sys.version_info.major}.{sys.version_info.minor}"), "-I", "-S",
              "/rt/modularrsi/harness/zygote.py", str(control_fd)]
    return bwrap_argv(mounts, zygote, cgroup_required=False)


def spawn_kept(argv: list[str], **popen) -> subprocess.Popen:
    """Start ``argv`` from a thread that lives as long as the process does: ``--die-with-parent`` is
    the parent-death signal, sent when the *thread* that started bwrap ends, and callers may be
    short-lived worker threads (``asyncio.to_thread``)."""
    started: dict = {}
    ready = threading.Event()

    def keeper() -> None:
        try:
            started["proc"] = subprocess.Popen(argv, **popen)
        except BaseException as exc:  # noqa: BLE001 - handed to the caller
            started["error"] = exc
        ready.set()
        if "proc" in started:
            started["proc"].wait()

    threading.Thread(target=keeper, name="modularrsi-zygote", daemon=True).start()
    ready.wait()
    if "error" in started:
        raise started["error"]
    return started["proc"]
