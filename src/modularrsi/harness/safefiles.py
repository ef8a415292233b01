"""Writes into the agent's logs directory that a symlink planted there cannot redirect.

Some environments bind-mount the agent logs directory into the trial (Harbor's docker environment
does), so whatever runs in the task can create ``trajectory.json`` or ``module_trace.jsonl`` as a
symlink to another host file before the harness writes it. Here a whole-file write goes to a fresh
temporary file (``O_CREAT | O_EXCL | O_NOFOLLOW``, a random name) renamed over the target — a rename
replaces a symlink, it never follows one — and an append opens with ``O_NOFOLLOW``, replacing a
symlink found at the name by a new regular file.
"""

from __future__ import annotations

import contextlib
import errno
import os
import tempfile
from pathlib import Path
from typing import TextIO


def write_atomic(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` through a temporary file and a rename (never through a symlink)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")  # O_EXCL|O_NOFOLLOW
    try:
        with os.fdopen(fd, "w") as handle:
            handle.write(text)
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def open_append(path: Path) -> TextIO:
    """``path`` opened for appending text; a symlink at ``path`` is removed, never followed."""
    path.parent.mkdir(parents=True, exist_ok=True)
    flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC
    try:
        fd = os.open(path, flags, 0o644)
    except OSError as exc:
        if exc.errno != errno.ELOOP:
            raise
        os.unlink(path)
        fd = os.open(path, flags | os.O_EXCL, 0o644)
    return os.fdopen(fd, "a")
