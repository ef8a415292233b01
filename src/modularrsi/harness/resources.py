"""Read-only resources the kernel lends to functions (an allowed import for function files)."""

from __future__ import annotations

import functools
from importlib import resources


@functools.cache
def terminus_template(name: str = "terminus-json-plain.txt") -> str:
    """A prompt template shipped with Harbor's Terminus-2 (``terminus-json-plain.txt``, ``timeout.txt``)."""
    return (resources.files("harbor.agents.terminus_2") / "templates" / name).read_text()
