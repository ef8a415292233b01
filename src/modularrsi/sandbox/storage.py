"""A LocalSandbox's disk: one sparse ext4 image per sandbox, the storage cap of everything it writes.

The image lives in the sandbox's host directory and is loop-mounted only inside the sandbox's own
mount namespace (see ``launch.py``), so the host never has a mount to clean up: the file system is
unmounted, and the loop device released, when the last process of the sandbox ends. The host reads
and writes the sandbox's files only through the sandbox (:mod:`modularrsi.sandbox.transfer`).

Invariants: the image's size is the cap (``storage_mb``, else :data:`DEFAULT_STORAGE_MB`); no blocks
are reserved for root; its root directory belongs to the sandbox's root.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

#: Cap for a task whose task.toml sets no ``storage_mb``.
DEFAULT_STORAGE_MB = 4096
#: Below this much free space (or 1% of the disk, if more) after a command, the disk counts as full
#: (ext4 keeps a few hundred KB it never hands out).
FULL_BELOW_BYTES = 1024 * 1024


def make_disk(image: Path, size_mb: int, owner: int) -> None:
    """A fresh sparse image of ``size_mb`` holding an empty ext4 owned by ``owner``."""
    image.unlink(missing_ok=True)
    with image.open("wb") as f:
        f.truncate(size_mb * 1024 * 1024)
    image.chmod(0o600)
    subprocess.run(["mkfs.ext4", "-q", "-F", "-O", "^has_journal", "-m", "0",
                    "-E", f"root_owner={owner}:{owner}", str(image)],
                   check=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)


def disk_full(sandbox_pid: int) -> bool:
    """Whether the disk of the sandbox whose init is ``sandbox_pid`` is (nearly) full."""
    try:
        stats = os.statvfs(f"/proc/{sandbox_pid}/root/tmp")
    except OSError:
        return False
    floor = max(FULL_BELOW_BYTES, stats.f_blocks * stats.f_frsize // 100)
    return stats.f_bavail * stats.f_frsize < floor or stats.f_favail == 0
