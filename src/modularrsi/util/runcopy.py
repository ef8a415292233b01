"""Copying a run directory as its ``--resume`` reads it: every file but the trials' sandboxes, each SQLite
database (response cache, memory, budget) through SQLite's backup API, so a copy taken while its run still
writes is consistent (its WAL included). Used to share rollouts between runs
(:attr:`~modularrsi.evolve.config.EvolveConfig.share_from`) and to carry runs between machines."""

from __future__ import annotations

import os
import shutil
import sqlite3
import tempfile
from collections.abc import Iterator
from pathlib import Path

#: Directories a copy leaves out: a trial's working tree and disk image serve only a running trial (a
#: resumed run starts an unfinished trial afresh).
SKIPPED_DIRS = frozenset({"sandbox", "__pycache__"})
SKIPPED_SUFFIXES = ("-wal", "-shm", "-journal")  # SQLite's side files: the backup copy folds them in
SQLITE_MAGIC = b"SQLite format 3\x00"


def run_files(run: Path) -> Iterator[Path]:
    """The regular files of ``run`` a copy keeps, in a stable order."""
    for folder, dirs, files in os.walk(run):
        dirs[:] = sorted(d for d in dirs if d not in SKIPPED_DIRS)
        for name in sorted(files):
            path = Path(folder) / name
            if not name.endswith(SKIPPED_SUFFIXES) and path.is_file() and not path.is_symlink():
                yield path


def is_sqlite(path: Path) -> bool:
    with open(path, "rb") as head:
        return head.read(16) == SQLITE_MAGIC


def sqlite_snapshot(source: Path, target: Path) -> None:
    """A consistent copy of the database ``source`` (read only) into the new file ``target``, written beside
    it and renamed into place, so an interrupted copy leaves no half database behind."""
    fd, partial = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".partial")
    os.close(fd)
    reader = sqlite3.connect(f"{source.resolve().as_uri()}?mode=ro", uri=True)
    writer = sqlite3.connect(partial)
    try:
        reader.backup(writer)
        writer.close()
        os.replace(partial, target)
    finally:
        reader.close()
        writer.close()
        Path(partial).unlink(missing_ok=True)


def copy_run(source: Path, target: Path) -> None:
    """Copy ``source`` to the new directory ``target``: whole or not at all (built beside it, then renamed)."""
    if target.exists():
        raise FileExistsError(f"{target}: exists already; a run is never copied over another")
    target.parent.mkdir(parents=True, exist_ok=True)
    scratch = Path(tempfile.mkdtemp(dir=target.parent, prefix=f".{target.name}."))
    try:
        for path in run_files(source):
            into = scratch / path.relative_to(source)
            into.parent.mkdir(parents=True, exist_ok=True)
            if is_sqlite(path):
                sqlite_snapshot(path, into)
            else:
                shutil.copy2(path, into)
        os.replace(scratch, target)
    except BaseException:
        shutil.rmtree(scratch, ignore_errors=True)
        raise
