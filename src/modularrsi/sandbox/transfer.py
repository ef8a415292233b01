"""Moving files between the host and a LocalSandbox without following any path the agent controls.

Every transfer runs *inside* the sandbox as its root (so a symlink resolves in the sandbox's view
and can reach nothing the sandbox could not already write): uploads stream a tar archive (or a
single file) into ``tar -x`` (``cat``); downloads stream ``tar -c`` (``cat``) out. On the host, an
archive is extracted with :func:`safe_member` (regular files and directories only, nothing outside
the target, no host file replaced) and a single file is written to a fresh temporary and renamed over its target.

Invariants: no host path outside the given target changes; nothing from the sandbox becomes a host
symlink, hard link, device or set-id file.
"""

from __future__ import annotations

import asyncio
import os
import shlex
import tarfile
import tempfile
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import IO

from modularrsi.util.files import check_replaceable

#: Runs a command inside the sandbox as its root with the given stdin and stdout files; raises on failure.
Runner = Callable[[str, IO[bytes] | None, IO[bytes] | None], Awaitable[None]]


def pack_dir(source: Path, out: IO[bytes]) -> None:
    """``source``'s contents as a tar stream owned by root (the sandbox's root)."""

    def as_root(member: tarfile.TarInfo) -> tarfile.TarInfo:
        member.uid = member.gid = 0
        member.uname = member.gname = "root"
        return member

    with tarfile.open(fileobj=out, mode="w") as tar:
        for child in sorted(source.iterdir()):
            tar.add(child, arcname=child.name, filter=as_root)
    out.flush()
    out.seek(0)


def safe_member(member: tarfile.TarInfo, dest: str) -> tarfile.TarInfo | None:
    """Regular files and directories only, inside ``dest``, without set-id bits, and never over a
    file the host already has there (the harness's own trajectory wins over the agent's copy)."""
    if not (member.isreg() or member.isdir()):
        return None
    if member.isreg() and os.path.lexists(os.path.join(dest, member.name)):
        return None
    member = tarfile.data_filter(member, dest)
    return member.replace(mode=(member.mode or 0o644) & 0o777, deep=False)


def extract(archive: IO[bytes], target: Path) -> None:
    archive.seek(0)
    target.mkdir(parents=True, exist_ok=True)
    with tarfile.open(fileobj=archive, mode="r") as tar:
        tar.extractall(target, filter=safe_member)


def write_file(data: IO[bytes], target: Path) -> None:
    """``data`` as ``target``, replacing (never following) the file or symlink there; never a device,
    directory, FIFO or socket (:func:`~modularrsi.util.files.check_replaceable`)."""
    check_replaceable(target)
    target.parent.mkdir(parents=True, exist_ok=True)
    data.seek(0)
    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.")
    try:
        with os.fdopen(fd, "wb") as out:
            while chunk := data.read(1 << 20):
                out.write(chunk)
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def untar_command(target: str) -> str:
    q = shlex.quote(target)
    return f"mkdir -p -- {q} && tar -C {q} --no-overwrite-dir -xf -"


def tar_command(source: str) -> str:
    """Archive ``source``'s contents to stdout; exit 1 ("file changed as we read it") is success."""
    return f"tar -C {shlex.quote(source)} -cf - .; [ $? -le 1 ]"


def put_file_command(target: str, mode: int, into_dir_as: str | None = None) -> str:
    """Write stdin to ``target`` (to ``target/into_dir_as`` when ``target`` is a directory)."""
    t = shlex.quote(target)
    pick = f"[ -d {t} ] && t={t}/{shlex.quote(into_dir_as)}; " if into_dir_as else ""
    return (f't={t}; {pick}mkdir -p -- "$(dirname -- "$t")" && rm -f -- "$t" && cat > "$t" '
            f'&& chmod {mode & 0o7777:o} -- "$t"')


async def put_file(run: Runner, source: Path, target: str, into_dir_as: str | None = None) -> None:
    with open(source, "rb") as data:
        mode = os.fstat(data.fileno()).st_mode
        await run(put_file_command(target, mode, into_dir_as), data, None)


async def put_tree(run: Runner, source: Path, target: str) -> None:
    with tempfile.TemporaryFile() as tar:
        await asyncio.to_thread(pack_dir, source, tar)
        await run(untar_command(target), tar, None)


async def get_file(run: Runner, source: str, target: Path) -> None:
    with tempfile.TemporaryFile() as data:
        await run(f"cat -- {shlex.quote(source)}", None, data)
        await asyncio.to_thread(write_file, data, target)


async def get_tree(run: Runner, source: str, target: Path) -> None:
    with tempfile.TemporaryFile() as tar:
        await run(tar_command(source), None, tar)
        await asyncio.to_thread(extract, tar, target)
