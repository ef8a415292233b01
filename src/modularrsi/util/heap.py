"""The interpreter's heap before a run's attempts start.

One process runs every attempt of a run, and it holds a large heap of long-lived objects (LiteLLM's
and Harbor's modules and tables: ~440,000 objects). CPython's full collections walk all of them:
with 64 attempts in flight one full collection held the event loop ~0.4 s, and every attempt
waited (``bench/remote.py``). :func:`settle` collects once and moves every object alive then into
the permanent generation (:func:`gc.freeze`), so later full collections walk only what the runs
allocate; the caller imports the libraries the run will use first. Frozen objects are still freed
when their last reference goes; only a reference cycle among them is never collected, so this is done
once per process (again only if LiteLLM was imported since), when what is alive is mostly code and
tables.
"""

from __future__ import annotations

import gc
import sys

_frozen_with: set[str] = set()


def settle() -> None:
    """Freeze the heap before the first run of this process, and before the first run after LiteLLM
    was imported."""
    key = "litellm" if "litellm" in sys.modules else "base"
    if key in _frozen_with or (key == "base" and _frozen_with):
        return
    gc.collect()
    gc.freeze()
    _frozen_with.add(key)
