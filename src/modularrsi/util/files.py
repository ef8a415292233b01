"""Atomic writes: a reader never sees half a file, an interrupted writer leaves the old one."""

from __future__ import annotations

import json
import os
import stat
import tempfile
from pathlib import Path
from typing import Any

import yaml


def check_replaceable(path: Path) -> None:
    """Refuse (OSError) to replace ``path`` by a rename when something other than a regular file or a
    symlink is there: an atomic write given ``/dev/null`` (or a directory, a socket, a FIFO) would
    otherwise put a regular file in its place."""
    try:
        mode = os.lstat(path).st_mode
    except FileNotFoundError:
        return
    if not (stat.S_ISREG(mode) or stat.S_ISLNK(mode)):
        kind = "directory" if stat.S_ISDIR(mode) else "device, FIFO or socket"
        raise IsADirectoryError(f"{path}: a {kind}, not a regular file; refusing to replace it with a file")


def write_text(path: Path, text: str) -> None:
    check_replaceable(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def write_json(path: Path, data: Any) -> None:
    write_text(path, json.dumps(data, indent=2, default=str) + "\n")


def write_yaml(path: Path, data: Any) -> None:
    write_text(path, yaml.safe_dump(data, sort_keys=False))
