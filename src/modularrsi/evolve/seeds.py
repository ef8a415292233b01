"""Seeds derived from the run's seed, so every stage draws the same numbers when a run is resumed."""

from __future__ import annotations

import hashlib


def derived_seed(seed: int, *parts: object) -> int:
    """A 32-bit seed for (``seed``, ``parts``): stable across processes and Python versions."""
    return int(hashlib.sha256(":".join(map(str, (seed, *parts))).encode()).hexdigest()[:8], 16)
