"""Read-only resources the kernel lends to functions (an allowed import for function files).

Resources are looked up by name from a fixed set (:data:`TEMPLATES`); any other name is refused,
so a function cannot turn a resource lookup into a file read.
"""

from __future__ import annotations

import functools
from importlib import resources

#: Prompt templates shipped with Harbor's Terminus-2, by the names functions may ask for.
TEMPLATES = ("terminus-json-plain.txt", "terminus-xml-plain.txt", "timeout.txt")


@functools.cache
def terminus_template(name: str = "terminus-json-plain.txt") -> str:
    """A prompt template shipped with Harbor's Terminus-2, by one of the names in :data:`TEMPLATES`."""
    if name not in TEMPLATES:
        raise ValueError(f"unknown template {name!r}; the kernel lends {', '.join(TEMPLATES)}")
    return (resources.files("harbor.agents.terminus_2") / "templates" / name).read_text()
