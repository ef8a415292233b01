"""The evolvable harness: a Harbor agent assembled from a generation of module functions.

``BASELINE`` is gen_0, the shipped Terminus-2 generation; ``ModularAgent`` (``-a
modularrsi.harness:ModularAgent``) is imported when first asked for, so that reading ``BASELINE``
does not load Harbor."""

from __future__ import annotations

from typing import Any

from modularrsi.harness.library import BASELINE

__all__ = ["BASELINE", "ModularAgent"]


def __getattr__(name: str) -> Any:
    if name == "ModularAgent":
        from modularrsi.harness.agent import ModularAgent

        return ModularAgent
    raise AttributeError(f"module 'modularrsi.harness' has no attribute {name!r}")
