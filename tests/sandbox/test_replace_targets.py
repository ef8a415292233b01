"""An atomic write or a download never turns a device node, FIFO or directory into a regular file (a
host /dev/null was once found replaced by one)."""

from __future__ import annotations

import io
import os
import stat

import pytest
from sandbox_helpers import started

from modularrsi.sandbox.transfer import write_file
from modularrsi.util.files import write_json, write_text


def nodes(root):
    """A character device like /dev/null (1, 3), a FIFO and a directory, made under ``root``."""
    null, fifo, folder = root / "null", root / "fifo", root / "folder"
    os.mknod(null, stat.S_IFCHR | 0o666, os.makedev(1, 3))
    os.mkfifo(fifo)
    folder.mkdir()
    return {null: stat.S_ISCHR, fifo: stat.S_ISFIFO, folder: stat.S_ISDIR}


@pytest.mark.skipif(os.geteuid() != 0, reason="making a device node needs root")
async def test_writes_and_downloads_refuse_to_replace_a_device_fifo_or_directory(task_factory, tmp_path):
    made = nodes(tmp_path)
    box = await started(task_factory(), tmp_path / "trial")
    try:
        await box.exec("echo payload > /tmp/payload")
        for path in made:
            for write in (lambda p: write_text(p, "x"), lambda p: write_json(p, {}),
                          lambda p: write_file(io.BytesIO(b"x"), p)):
                with pytest.raises(IsADirectoryError, match="refusing to replace it"):
                    write(path)
            with pytest.raises(IsADirectoryError):
                await box.download_file("/tmp/payload", path)
    finally:
        await box.stop(delete=True)
    for path, kind in made.items():
        assert kind(os.lstat(path).st_mode), f"{path} was replaced"
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(".")) == []  # no temporaries left
